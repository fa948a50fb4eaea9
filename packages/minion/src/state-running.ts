const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** Salt's words for a state run in progress (the state lock's refusal, and state.running's list). */
export function stateRunningMessage(fun: string, jid: string, d: Date): string {
  const p = (n: number, w = 2) => String(n).padStart(w, '0');
  const when = `${d.getFullYear()}, ${MONTHS[d.getMonth()]} ${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}.${p(d.getMilliseconds() * 1000, 6)}`;
  return `The function "${fun}" is running as PID ${process.pid} and was started at ${when} with jid ${jid}`;
}
