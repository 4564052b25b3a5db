import { save } from './actions';

export const dynamic = 'force-dynamic';

export default function Actions() {
  return (
    <form action={save}>
      <input name="name" defaultValue="x" />
      <button type="submit">save</button>
    </form>
  );
}
