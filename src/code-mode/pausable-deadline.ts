/**
 * runCode's wall-clock limit, which stands still while any nested call waits for a person (an approval
 * can take minutes; the program's own time cannot). Used by run-program.ts; `expired` resolves when the
 * running time (waits left out) reaches `ms`; `clear` ends it for good.
 */
export function pausableDeadline(ms: number, onHumanWait: (listener: (waiting: boolean) => void) => void) {
  let left = ms;
  let startedAt = Date.now();
  let waiting = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let done = false;
  let fire!: () => void;
  const expired = new Promise<void>((resolve) => {
    fire = resolve;
  });
  const arm = () => {
    if (done) return;
    startedAt = Date.now();
    timer = setTimeout(fire, Math.max(0, left));
  };
  onHumanWait((isWaiting) => {
    if (isWaiting) {
      if (waiting++ === 0 && timer !== undefined) {
        clearTimeout(timer);
        timer = undefined;
        left -= Date.now() - startedAt;
      }
    } else if (--waiting === 0) arm();
  });
  arm();
  return {
    expired,
    clear: () => {
      done = true;
      if (timer !== undefined) clearTimeout(timer);
    },
  };
}
