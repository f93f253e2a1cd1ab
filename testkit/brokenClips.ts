/**
 * Broken clips for the stage's preparation tests (issue 36): a clip whose packets are intact in the container but
 * whose data is corrupt from one packet on, the way a bad transfer or a damaged disk leaves it. Made here from an
 * intact clip with mediabunny (read every packet, write them back, the chosen ones damaged), so the container is
 * valid and only decoding can tell.
 */
import { ALL_FORMATS, BufferSource, BufferTarget, EncodedPacketSink, EncodedVideoPacketSource, Input, Mp4OutputFormat, Output } from 'mediabunny';

/**
 * The MP4 `clip` with the packets from `from` on (decode order) damaged: each keeps its size, its first NAL unit's
 * length prefix says more bytes than the packet holds, and the rest is noise, so an H.264 decoder cannot parse it.
 */
export async function corruptFrom(clip: Buffer, from: number): Promise<Buffer> {
  const input = new Input({ formats: ALL_FORMATS, source: new BufferSource(clip) });
  const track = (await input.getPrimaryVideoTrack())!;
  const config = await track.getDecoderConfig();
  const output = new Output({ format: new Mp4OutputFormat({ fastStart: 'in-memory' }), target: new BufferTarget() });
  const source = new EncodedVideoPacketSource(track.codec!);
  output.addVideoTrack(source, { frameRate: undefined });
  await output.start();
  let index = 0;
  for await (const packet of new EncodedPacketSink(track).packets()) {
    let data = packet.data;
    if (index >= from) {
      data = new Uint8Array(packet.data.length);
      for (let i = 0; i < data.length; i++) data[i] = (i * 131 + index * 17) & 0xff;
      new DataView(data.buffer).setUint32(0, 0x7ffffff0);
    }
    await source.add(packet.clone({ data }), index === 0 ? { decoderConfig: config! } : undefined);
    index++;
  }
  await output.finalize();
  input.dispose();
  return Buffer.from((output.target as BufferTarget).buffer!);
}
