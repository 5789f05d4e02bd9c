import assert from 'node:assert/strict';
import { prepareObject, type PreparedObject } from '../../src/storage/git-objects.ts';
import { packEntries, packEntry } from '../../src/storage/pack-writer.ts';

/** Blobs of varied text, `count` of about 4 KB each, and one folder's tree naming them (400 are more than a megabyte). */
export function pageObjects(count: number): PreparedObject[] {
  const blobs = Array.from({ length: count }, (_, i) => prepareObject('blob', Buffer.from(`# Page ${i}\n\n${`Step ${i}: open the settings and choose ${i % 7} items. `.repeat(60 + (i % 13))}\n`)));
  const entries = blobs.map((b, i) => Buffer.concat([Buffer.from(`100644 page-${String(i).padStart(4, '0')}.md\0`), Buffer.from(b.oid, 'hex')]));
  return [...blobs, prepareObject('tree', Buffer.concat(entries))];
}

/** Asserts that `objects`, more than a megabyte (a write that deflates on the deflating thread), make the very pack entries they make one by one here. */
export async function assertPackedAsHere(objects: PreparedObject[]): Promise<void> {
  assert.ok(objects.reduce((n, o) => n + o.content.length, 0) > 1 << 20, 'enough bytes to go to the thread');
  const entries = await packEntries(objects);
  assert.equal(entries.length, objects.length);
  for (const [k, entry] of entries.entries()) {
    const here = packEntry(objects[k]);
    assert.equal(entry.oid, here.oid);
    assert.ok(entry.bytes.equals(here.bytes), `entry ${k}`);
    assert.equal(entry.crc, here.crc);
  }
}
