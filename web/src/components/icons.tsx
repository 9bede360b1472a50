import type { JSX } from 'preact';

/** Inline SVG icons (no icon font, nothing fetched). Decorative: the control that holds one carries the name. */
type IconProps = { size?: number; class?: string };

function svg(path: JSX.Element, { size = 18, class: cls }: IconProps, viewBox = '0 0 24 24'): JSX.Element {
  return (
    <svg class={cls ? `icon ${cls}` : 'icon'} width={size} height={size} viewBox={viewBox} aria-hidden="true" focusable="false">
      {path}
    </svg>
  );
}

export const HashIcon = (p: IconProps) => svg(<path fill="currentColor" d="M10.6 3.2 9.9 7h4.3l.7-3.8 2 .4L16.3 7H20v2h-4l-.7 4H19v2h-4l-.7 3.8-2-.4.7-3.4H8.7L8 18.8l-2-.4.7-3.4H3v-2h4l.7-4H4V7h4l.7-4.2 1.9.4ZM9.5 9l-.7 4h4.3l.7-4H9.5Z" />, p);
export const LockIcon = (p: IconProps) => svg(<path fill="currentColor" d="M12 2a5 5 0 0 1 5 5v3h1a2 2 0 0 1 2 2v8a2 2 0 0 1-2 2H6a2 2 0 0 1-2-2v-8a2 2 0 0 1 2-2h1V7a5 5 0 0 1 5-5Zm6 10H6v8h12v-8Zm-6-8a3 3 0 0 0-3 3v3h6V7a3 3 0 0 0-3-3Z" />, p);
export const InfoIcon = (p: IconProps) => svg(<path fill="currentColor" d="M12 2a10 10 0 1 1 0 20 10 10 0 0 1 0-20Zm0 2a8 8 0 1 0 0 16 8 8 0 0 0 0-16Zm1 7v6h-2v-6h2Zm-1-4a1.25 1.25 0 1 1 0 2.5A1.25 1.25 0 0 1 12 7Z" />, p);
export const CloseIcon = (p: IconProps) => svg(<path fill="currentColor" d="m6.4 5 5.6 5.6L17.6 5 19 6.4 13.4 12l5.6 5.6-1.4 1.4-5.6-5.6L6.4 19 5 17.6l5.6-5.6L5 6.4 6.4 5Z" />, p);
export const ReplyIcon = (p: IconProps) => svg(<path fill="currentColor" d="M10 9V5l-7 7 7 7v-4.1c5 0 8.5 1.6 11 5.1-1-5-4-10-11-11Z" />, p);
export const DotsIcon = (p: IconProps) => svg(<path fill="currentColor" d="M6 10.5a1.5 1.5 0 1 1 0 3 1.5 1.5 0 0 1 0-3Zm6 0a1.5 1.5 0 1 1 0 3 1.5 1.5 0 0 1 0-3Zm6 0a1.5 1.5 0 1 1 0 3 1.5 1.5 0 0 1 0-3Z" />, p);
export const SendIcon = (p: IconProps) => svg(<path fill="currentColor" d="m3 20.5 18-8.5L3 3.5l.01 6.6L15 12 3.01 13.9 3 20.5Z" />, p);
export const MembersIcon = (p: IconProps) => svg(<path fill="currentColor" d="M9 12a4 4 0 1 1 0-8 4 4 0 0 1 0 8Zm0-2a2 2 0 1 0 0-4 2 2 0 0 0 0 4Zm7.5 3.5a3.5 3.5 0 1 1 0-7 3.5 3.5 0 0 1 0 7Zm0-2a1.5 1.5 0 1 0 0-3 1.5 1.5 0 0 0 0 3ZM2 20v-1a6 6 0 0 1 6-6h2a6 6 0 0 1 6 6v1h-2v-1a4 4 0 0 0-4-4H8a4 4 0 0 0-4 4v1H2Zm20 0h-2v-.5a3 3 0 0 0-3-3h-.6a7.6 7.6 0 0 0-1-2h1.6a5 5 0 0 1 5 5v.5Z" />, p);
export const BotIcon = (p: IconProps) => svg(<path fill="currentColor" d="M12 2a1.5 1.5 0 0 1 1 2.6V6h4a3 3 0 0 1 3 3v8a3 3 0 0 1-3 3H7a3 3 0 0 1-3-3V9a3 3 0 0 1 3-3h4V4.6A1.5 1.5 0 0 1 12 2Zm5 6H7a1 1 0 0 0-1 1v8a1 1 0 0 0 1 1h10a1 1 0 0 0 1-1V9a1 1 0 0 0-1-1Zm-7.5 2.5a1.5 1.5 0 1 1 0 3 1.5 1.5 0 0 1 0-3Zm5 0a1.5 1.5 0 1 1 0 3 1.5 1.5 0 0 1 0-3ZM9 15h6v1.5H9V15ZM1 11h2v5H1v-5Zm20 0h2v5h-2v-5Z" />, p);
export const ChevronDownIcon = (p: IconProps) => svg(<path fill="currentColor" d="m7.4 8.6 4.6 4.6 4.6-4.6L18 10l-6 6-6-6 1.4-1.4Z" />, p);
export const ArrowDownIcon = (p: IconProps) => svg(<path fill="currentColor" d="M11 4h2v12l5.5-5.5 1.4 1.4L12 19.8l-7.9-7.9 1.4-1.4L11 16V4Z" />, p);
export const EditIcon = (p: IconProps) => svg(<path fill="currentColor" d="M14.1 5.1 18.9 9.9 8.8 20H4v-4.8L14.1 5.1Zm0 2.8L6 16v2h2l8.1-8.1-2-2Zm2.8-4.7a1.5 1.5 0 0 1 2.1 0l1.8 1.8a1.5 1.5 0 0 1 0 2.1l-1.3 1.3-3.9-3.9 1.3-1.3Z" />, p);
export const TrashIcon = (p: IconProps) => svg(<path fill="currentColor" d="M9 3h6l1 2h4v2H4V5h4l1-2Zm-3 6h12l-1 11a2 2 0 0 1-2 2H9a2 2 0 0 1-2-2L6 9Zm2.2 2 .8 9h6l.8-9H8.2Z" />, p);
export const MenuIcon = (p: IconProps) => svg(<path fill="currentColor" d="M3 6h18v2H3V6Zm0 5h18v2H3v-2Zm0 5h18v2H3v-2Z" />, p);
export const AttachIcon = (p: IconProps) => svg(<path fill="currentColor" d="M16.5 6v11.5a4.5 4.5 0 0 1-9 0V5a3 3 0 0 1 6 0v10.5a1.5 1.5 0 0 1-3 0V6H9v9.5a3 3 0 0 0 6 0V5a4.5 4.5 0 0 0-9 0v12.5a6 6 0 0 0 12 0V6h-1.5Z" />, p);
export const DownloadIcon = (p: IconProps) => svg(<path fill="currentColor" d="M11 3h2v10.2l3.6-3.6 1.4 1.4-6 6-6-6 1.4-1.4 3.6 3.6V3ZM5 19h14v2H5v-2Z" />, p);
export const SearchIcon = (p: IconProps) => svg(<path fill="currentColor" d="M10 3a7 7 0 0 1 5.6 11.2l5.1 5.1-1.4 1.4-5.1-5.1A7 7 0 1 1 10 3Zm0 2a5 5 0 1 0 0 10 5 5 0 0 0 0-10Z" />, p);
export const ChevronLeftIcon = (p: IconProps) => svg(<path fill="currentColor" d="M15.4 7.4 10.8 12l4.6 4.6L14 18l-6-6 6-6 1.4 1.4Z" />, p);
export const ChevronRightIcon = (p: IconProps) => svg(<path fill="currentColor" d="M8.6 16.6 13.2 12 8.6 7.4 10 6l6 6-6 6-1.4-1.4Z" />, p);
export const PlusIcon = (p: IconProps) => svg(<path fill="currentColor" d="M11 5h2v6h6v2h-6v6h-2v-6H5v-2h6V5Z" />, p);
export const ArchiveIcon = (p: IconProps) => svg(<path fill="currentColor" d="M3 3h18v5h-1v12a1 1 0 0 1-1 1H5a1 1 0 0 1-1-1V8H3V3Zm3 5v11h12V8H6Zm-1-3v1h14V5H5Zm4 5h6v2H9v-2Z" />, p);
export const SmileIcon = (p: IconProps) => svg(<path fill="currentColor" d="M12 2a10 10 0 1 1 0 20 10 10 0 0 1 0-20Zm0 2a8 8 0 1 0 0 16 8 8 0 0 0 0-16Zm-4 9h8a4 4 0 0 1-8 0Zm1-5a1.5 1.5 0 1 1 0 3 1.5 1.5 0 0 1 0-3Zm6 0a1.5 1.5 0 1 1 0 3 1.5 1.5 0 0 1 0-3Z" />, p);
export const PinIcon = (p: IconProps) => svg(<path fill="currentColor" d="M16 3v2h-1v5.2l3 3V15h-5v6l-1 1-1-1v-6H6v-1.8l3-3V5H8V3h8Zm-3 2h-2v6l-2.2 2h6.4L13 11V5Z" />, p);
