import { UPSTREAM } from '../../../lib/upstream';

export const dynamic = 'force-dynamic';

export default async function Post({ params }: { params: Promise<{ slug: string }> }) {
  const { slug } = await params;
  const response = await fetch(`${UPSTREAM}/posts/${slug}`, { cache: 'no-store' }); // call: post
  const post = await response.json();
  return <main id="post">{`post ${post.slug}`}</main>;
}
