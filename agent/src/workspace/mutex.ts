/** Runs async sections one at a time, in call order; a section that throws does not block the next. */
export type Mutex = <T>(section: () => Promise<T>) => Promise<T>;

/** A new {@link Mutex}. In-process only: local runs are one process. */
export function createMutex(): Mutex {
  let tail: Promise<unknown> = Promise.resolve();
  return <T>(section: () => Promise<T>) => {
    const run = tail.then(section, section);
    tail = run.catch(() => undefined);
    return run;
  };
}
