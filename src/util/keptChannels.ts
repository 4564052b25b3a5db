import diagnostics from 'node:diagnostics_channel';

/**
 * Every diagnostics channel Probe subscribes to stays referenced here for the process's life. Node keeps a channel
 * object only weakly once its last subscriber leaves, and on Node 20 the finalizer of a collected channel runs late
 * and deletes the entry of whatever channel of the same name was made since
 * (https://github.com/nodejs/node/blob/v20.19.0/lib/diagnostics_channel.js, WeakRefMap): a subscriber the app adds
 * after Probe left a channel whose publisher has not loaded yet (undici's, a framework's) would be cut off from the
 * publishes, depending on when V8 collects. A channel kept here is never collected: whoever subscribes later gets the
 * very object the publisher uses.
 */
const kept = new Map<string, diagnostics.Channel>();

/** Keeps the channel `name` referenced (see above); call it before subscribing to it. */
export function keepChannel(name: string): void {
  if (!kept.has(name)) kept.set(name, diagnostics.channel(name));
}
