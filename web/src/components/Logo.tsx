/** Parley's mark: two overlapping speech bubbles. */
export function Logo({ size = 32 }: { size?: number }) {
  return (
    <svg class="logo" width={size} height={size} viewBox="0 0 48 48" aria-hidden="true" focusable="false">
      <rect x="4" y="6" width="30" height="24" rx="8" fill="#1c58d9" />
      <path d="M12 30h6l-6 7z" fill="#1c58d9" />
      <rect x="16" y="16" width="28" height="22" rx="8" fill="#3ecf8e" />
      <path d="M36 38h-6l6 6z" fill="#3ecf8e" />
      <circle cx="24" cy="27" r="2.2" fill="#fff" />
      <circle cx="30" cy="27" r="2.2" fill="#fff" />
      <circle cx="36" cy="27" r="2.2" fill="#fff" />
    </svg>
  );
}
