/**
 * Reads a video as the stage does (src/web/stage/clipPlayer.ts: mediabunny, the primary video track, every packet),
 * in a worker that video-packets.ts runs under a time and heap bound: a container that makes the demuxer loop or
 * allocate without end costs the worker, never the server's event loop. Plain JavaScript, as the other workers
 * (src/server/body/), so that it runs under Node as it is. Answers what the importer's checks need: the codec, its
 * colour tags, and how many packets and bytes the track lists (counting stops past `maxPackets`).
 */
import { parentPort } from 'node:worker_threads';
import { ALL_FORMATS, EncodedPacketSink, FilePathSource, Input } from 'mediabunny';

parentPort.on('message', async ({ path, maxPackets }) => {
  parentPort.postMessage(await readVideo(path, maxPackets));
});

async function readVideo(path, maxPackets) {
  const input = new Input({ formats: ALL_FORMATS, source: new FilePathSource(path) });
  let step = 'container';
  try {
    const track = await input.getPrimaryVideoTrack();
    if (!track) return { track: null };
    const codecString = await track.getCodecParameterString().catch(() => null);
    const colorSpace = await track.getColorSpace().catch(() => null);
    step = 'packets';
    let packets = 0;
    let bytes = 0;
    // Metadata only: the sizes and timestamps the stage's table gives, without reading the media bytes themselves.
    for await (const packet of new EncodedPacketSink(track).packets(undefined, undefined, { metadataOnly: true })) {
      if (++packets > maxPackets) break;
      bytes += packet.byteLength;
    }
    return { track: { codec: track.codec, codecString, colorSpace: colorSpace && { ...colorSpace }, packets, bytes } };
  } catch (error) {
    return { failed: step, message: String(error?.message ?? error).slice(0, 200) };
  } finally {
    input.dispose();
  }
}
