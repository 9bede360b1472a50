/** Where focus goes back to when a panel closes: the control that opened it. */
let opener: HTMLElement | null = null;

export function rememberOpener(el: EventTarget | null): void {
  opener = el instanceof HTMLElement ? el : null;
}

export function returnFocus(): void {
  const el = opener;
  opener = null;
  if (el && el.isConnected) el.focus();
}
