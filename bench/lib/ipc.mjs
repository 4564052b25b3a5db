// Ask a child started with `ipc: true` one question and wait for its answer.
export function ask(child, question) {
  return new Promise((resolve) => {
    child.once('message', resolve);
    child.send(question);
  });
}
