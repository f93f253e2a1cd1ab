import { createColumnHelper } from '@tanstack/react-table';
import { useEffect, useMemo, useState } from 'react';
import { getJson } from './consoleApi.js';
import { useConsole } from './context.js';
import { DataTable } from './DataTable.js';
import { dateTime } from './strings.js';

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
      column.accessor('email', { header: t.email, cell: (c) => <span translate="no">{c.getValue()}</span> }),
      // Words in cells, not accessors: TanStack caches accessor values per row, so they would keep the old language.
      column.accessor('roles', { header: t.roles, cell: (c) => (c.row.original.admin ? t.administrator : c.getValue().map((r) => `${t.roleNames[r.role]}${t.colon}${r.jobId}`).join(', ') || t.noRole) }),
      column.accessor('sessions', { header: t.signedInSessions }),
      column.accessor('createdAt', { header: t.created, cell: (c) => dateTime(t, c.getValue()) }),
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
