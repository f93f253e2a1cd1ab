import { createInterface } from 'node:readline';
import { Writable, type Readable } from 'node:stream';
import { parseArgs } from 'node:util';
import { hashPassword, MIN_PASSWORD_LENGTH } from './console/passwords.js';
import { findJob } from './storage/jobs.js';
import type { Storage } from './storage/types.js';
import { closeSessionsOfUser, createUser, findUserByEmail, grantRole, removeUser, revokeRole, setCreatesStudies, userSummaries, type JobRole } from './storage/users.js';

export const USERS_USAGE = `  user add <email>                           a console account; the password is prompted (the first account
                                             administers every job)
  user grant <email> <jobId> owner|viewer    a role on a job (owners act and see platform ids; viewers read)
  user grant <email> creator                 may upload new studies in the console (and owns what it uploads)
  user revoke <email> creator                no longer may
  user revoke <email> <jobId>                takes the role on that job away (open live pages end at once)
  user sign-out <email>                      ends every signed-in session of the account
  user remove <email>                        deletes the account, its roles and its sessions
  user list                                  every account with its roles`;

/**
 * Reads the password: from a terminal without echo, else the first line of stdin (scripts:
 * `printf '%s\\n' "$PW" | npm run cli -- user add a@b.c`).
 */
async function readPassword(input: Readable, prompt: Writable): Promise<string> {
  prompt.write('password: ');
  if ((input as Readable & { isTTY?: boolean }).isTTY) {
    // A terminal: readline echoes into a sink, so the password never shows.
    const sink = new Writable({ write: (_chunk, _encoding, done) => done() });
    const rl = createInterface({ input, output: sink, terminal: true });
    const answer = await new Promise<string>((resolve) => rl.question('', resolve));
    rl.close();
    prompt.write('\n');
    return answer;
  }
  for await (const line of createInterface({ input, terminal: false })) return line;
  return '';
}

export async function userCommand(storage: Storage, args: string[], io: { in: Readable; out: Writable; err: Writable }): Promise<number> {
  const say = (line: string) => io.out.write(`${line}\n`);
  const fail = (line: string) => (io.err.write(`${line}\n`), 1);
  const { positionals } = parseArgs({ args, allowPositionals: true, options: {} });
  const [action, email, jobId, role] = positionals;
  if (action === 'add' && email && positionals.length === 2) {
    if (!/^[^\s@]+@[^\s@]+$/.test(email)) return fail(`${email} is not an e-mail address`);
    if (await findUserByEmail(storage, email)) return fail(`an account ${email.toLowerCase()} exists already`);
    const password = await readPassword(io.in, io.err);
    if (password.length < MIN_PASSWORD_LENGTH) return fail(`the password needs at least ${MIN_PASSWORD_LENGTH} characters`);
    const user = await createUser(storage, email, await hashPassword(password));
    say(`account ${user.email} created${user.admin ? ' (administrator: owner of every job)' : ''}`);
    return 0;
  }
  if (action === 'grant' && email && jobId && (role === 'owner' || role === 'viewer') && positionals.length === 4) {
    const user = await findUserByEmail(storage, email);
    if (!user) return fail(`no account ${email}`);
    if (!(await findJob(storage, jobId))) return fail(`no job ${jobId}`);
    await grantRole(storage, jobId, user.id, role as JobRole);
    say(`${user.email} is ${role} of ${jobId}`);
    return 0;
  }
  if ((action === 'grant' || action === 'revoke') && email && jobId === 'creator' && positionals.length === 3) {
    const user = await findUserByEmail(storage, email);
    if (!user) return fail(`no account ${email}`);
    await setCreatesStudies(storage, user.id, action === 'grant');
    say(action === 'grant' ? `${user.email} may upload new studies` : `${user.email} may no longer upload new studies`);
    return 0;
  }
  if (action === 'list' && positionals.length === 1) {
    for (const user of await userSummaries(storage)) {
      const roles = user.admin ? 'administrator' : user.roles.map((r) => `${r.role} of ${r.jobId}`).join(', ') || 'no role';
      say(`${user.email}\t${roles}\t${user.sessions} signed-in session(s)`);
    }
    return 0;
  }
  if ((action === 'revoke' && email && jobId && positionals.length === 3) || ((action === 'sign-out' || action === 'remove') && email && positionals.length === 2)) {
    const user = await findUserByEmail(storage, email);
    if (!user) return fail(`no account ${email}`);
    if (action === 'revoke') {
      if (!(await revokeRole(storage, jobId!, user.id))) return fail(`${user.email} has no role on ${jobId}`);
      say(`${user.email} has no role on ${jobId} any more`);
    } else if (action === 'sign-out') {
      say(`${user.email}: ${await closeSessionsOfUser(storage, user.id)} session(s) ended`);
    } else {
      // Someone must keep administering every job.
      const admins = (await userSummaries(storage)).filter((u) => u.admin).length;
      if (user.admin === 1 && admins <= 1) return fail(`${user.email} is the only administrator: it cannot be removed`);
      await removeUser(storage, user.id);
      say(`account ${user.email} removed, with its roles and sessions`);
    }
    return 0;
  }
  return fail(`Usage:\n${USERS_USAGE}`);
}
