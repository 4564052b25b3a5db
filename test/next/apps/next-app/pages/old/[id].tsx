import { UPSTREAM } from '../../lib/upstream';

export async function getServerSideProps({ params }: { params: { id: string } }) {
  const response = await fetch(`${UPSTREAM}/old/${params.id}`); // call: old
  return { props: { old: await response.json() } };
}

export default function Old({ old }: { old: { id: string } }) {
  return <main id="old">{`old ${old.id}`}</main>;
}
