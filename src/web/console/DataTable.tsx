import { flexRender, getCoreRowModel, useReactTable, type ColumnDef } from '@tanstack/react-table';

/**
 * A table of the console: TanStack Table's row model rendered as a plain, accessible HTML table (a caption, header
 * cells with scope). Paging and filtering, where a table has them, are done by the server. A table under a heading
 * that already names it takes its name from the heading (`labelledBy`) rather than repeating it in a caption.
 */
export function DataTable<Row>({ caption, labelledBy, columns, rows, id }: { caption?: string; labelledBy?: string; columns: Array<ColumnDef<Row, any>>; rows: Row[]; id?: string }) {
  const table = useReactTable({ data: rows, columns, getCoreRowModel: getCoreRowModel() });
  return (
    <div className="table-scroll">
      <table className="console-table" id={id} aria-labelledby={labelledBy}>
        {caption && <caption>{caption}</caption>}
        <thead>
          {table.getHeaderGroups().map((group) => (
            <tr key={group.id}>
              {group.headers.map((header) => (
                <th key={header.id} scope="col">
                  {header.isPlaceholder ? null : flexRender(header.column.columnDef.header, header.getContext())}
                </th>
              ))}
            </tr>
          ))}
        </thead>
        <tbody>
          {table.getRowModel().rows.map((row) => (
            <tr key={row.id}>
              {row.getVisibleCells().map((cell) => (
                <td key={cell.id}>{flexRender(cell.column.columnDef.cell, cell.getContext())}</td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
