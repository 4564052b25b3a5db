import { keyName, STALE_NOTE_MS, type LinkIndex, type LinkNote, type LinkSides, type NoteEntry } from './linkNotes';

/**
 * KEYS: one per note. ARGV: ttl (s), the stale distance (ms), then per note its JSON, capture, row ('' for a
 * request) and time. decideNote's rule, run on the server: two processes noting one key at once are one after the
 * other there, so a key two captures claim always ends `many`.
 */
export const NOTE_SCRIPT_SOURCE = `
local ttl = tonumber(ARGV[1])
local stale = tonumber(ARGV[2])
for i, key in ipairs(KEYS) do
  local base = 2 + (i - 1) * 4
  local json, capture, row, at = ARGV[base + 1], ARGV[base + 2], ARGV[base + 3], tonumber(ARGV[base + 4])
  local decision = 'write'
  local existing = redis.call('GET', key)
  if existing then
    local ok, entry = pcall(cjson.decode, existing)
    if ok and type(entry) == 'table' and type(entry.at) == 'number' and math.abs(entry.at - at) <= stale then
      if entry.many then
        decision = 'keep'
      elseif entry.capture == capture and (entry.row == nil and '' or tostring(entry.row)) == row then
        decision = 'keep'
      else
        decision = 'many'
      end
    end
  end
  if decision == 'write' then
    redis.call('SET', key, json, 'EX', ttl)
  elseif decision == 'many' then
    redis.call('SET', key, cjson.encode({ many = true, at = at }), 'EX', ttl)
  end
end
return #KEYS
`;

/** What RedisLinks needs of the driver: a script run and a multi-key read, each under the driver's deadlines. */
export interface RedisLinkAccess {
  /** `<prefix>link:`: every note's key starts with it. */
  prefix: string;
  ttl: number;
  eval(source: string, keys: string[], args: string[]): Promise<unknown>;
  mget(keys: string[]): Promise<unknown>;
}

/** The Redis store's link index: a key per note (`<prefix>link:<hash>:<side>`) living as long as a capture. */
export class RedisLinks implements LinkIndex {
  constructor(private readonly access: RedisLinkAccess) {}

  private keyOf(key: string, side: string): string {
    return `${this.access.prefix}${keyName(key)}:${side}`;
  }

  async note(notes: LinkNote[]): Promise<void> {
    if (!notes.length) return;
    const keys: string[] = [];
    const args = [String(this.access.ttl), String(STALE_NOTE_MS)];
    for (const note of notes) {
      keys.push(this.keyOf(note.key, note.side));
      args.push(JSON.stringify(note), note.capture, note.row === undefined ? '' : String(note.row), String(note.at));
    }
    await this.access.eval(NOTE_SCRIPT_SOURCE, keys, args);
  }

  async read(keys: string[]): Promise<Map<string, LinkSides>> {
    const names = keys.flatMap((key) => [this.keyOf(key, 'call'), this.keyOf(key, 'request')]);
    const values = await this.access.mget(names);
    const out = new Map<string, LinkSides>();
    if (!Array.isArray(values)) return out;
    keys.forEach((key, i) => {
      const call = entryOf(values[2 * i]);
      const request = entryOf(values[2 * i + 1]);
      if (call || request) out.set(key, { ...(call ? { call } : {}), ...(request ? { request } : {}) });
    });
    return out;
  }
}

function entryOf(text: unknown): NoteEntry | null {
  if (typeof text !== 'string') return null;
  try {
    const value = JSON.parse(text) as NoteEntry;
    return value && typeof value === 'object' && typeof value.at === 'number' ? value : null;
  } catch {
    return null;
  }
}
