import './components.css';

/** Header pairs in the order they were sent, duplicates kept (credentials arrive already cut to a hint). */
export function HeaderList({ headers, testId }: { headers: readonly (readonly [string, string])[]; testId: string }) {
  if (headers.length === 0) return <p className="muted">No headers.</p>;
  return (
    <table className="headers" data-testid={testId}>
      <tbody>
        {headers.map(([name, value], i) => (
          <tr key={i}>
            <th scope="row">{name}</th>
            <td>{value}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
