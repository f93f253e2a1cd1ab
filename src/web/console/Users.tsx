import { createColumnHelper } from '@tanstack/react-table';
import { useEffect, useMemo, useState } from 'react';
import { getJson } from './consoleApi.js';
import { useConsole } from './context.js';
import { DataTable } from './DataTable.js';

/** An account as GET /console/api/users answers it (storage/users.ts UserSummary). */
interface UserRow {
  email: string;
  admin: boolean;
  createdAt: string;
  sessions: number;
  roles: Array<{ jobId: string; role: 'owner' | 'viewer' }>;
}

const column = createColumnHelper<UserRow>();

/** Administrators: every account, its roles and its signed-in sessions (changed with `cli user ...`). */
export default function Users() {
  const { t } = useConsole();
  const [users, setUsers] = useState<UserRow[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    getJson<{ users: UserRow[] }>('/console/api/users').then((answer) => setUsers(answer.users), (e: Error) => setError(e.message));
  }, []);

  const columns = useMemo(
    () => [
      column.accessor('email', { header: t.email }),
      column.accessor((u) => (u.admin ? t.administrator : u.roles.map((r) => `${t.roleNames[r.role]}: ${r.jobId}`).join(', ') || t.noRole), { id: 'roles', header: t.roles }),
      column.accessor('sessions', { header: t.signedInSessions }),
      column.accessor((u) => u.createdAt.slice(0, 10), { id: 'created', header: t.created }),
    ],
    [t],
  );

  if (error) return <p role="alert" className="console-error">{error}</p>;
  if (!users) return <p role="status">{t.loading}</p>;
  return (
    <>
      <h1>{t.users}</h1>
      <DataTable caption={t.users} columns={columns} rows={users} id="users-table" />
      <p>{t.usersHint}</p>
    </>
  );
}
