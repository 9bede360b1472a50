import { emojiFor } from './emoji';

/**
 * The emoji the picker offers, by the names the server stores (`emoji_name`, Mattermost's short names: `+1` for the
 * thumbs up, its alias `thumbsup` found by search too). A compact built-in set, every one shown by emoji.ts. No DOM
 * here: unit-tested in Node.
 */
const CHOICES: string[][] = [
  ['+1', 'thumbsup'], ['-1', 'thumbsdown'], ['smile'], ['white_check_mark'], ['heart'], ['tada'], ['eyes'], ['rocket'],
  ['joy'], ['pray'], ['clap'], ['fire'], ['100', 'hundred_points'], ['ok_hand'], ['raised_hands'], ['wave'], ['muscle'],
  ['thinking_face', 'thinking'], ['grinning'], ['smiley'], ['grin'], ['laughing'], ['rofl'], ['wink'], ['blush'],
  ['slightly_smiling_face'], ['upside_down_face'], ['heart_eyes'], ['sunglasses'], ['nerd_face'], ['sweat_smile'],
  ['neutral_face'], ['expressionless'], ['unamused'], ['confused'], ['worried'], ['hushed'], ['astonished'], ['cry'],
  ['sob'], ['scream'], ['angry'], ['rage'], ['sleeping'], ['mask'], ['face_palm', 'facepalm'], ['shrug'], ['skull'],
  ['ghost'], ['robot_face', 'robot'], ['clown_face'], ['poop', 'hankey'], ['broken_heart'], ['yellow_heart'],
  ['green_heart'], ['blue_heart'], ['purple_heart'], ['sparkles'], ['star'], ['star2'], ['boom', 'collision'], ['zap'],
  ['sunny'], ['rainbow'], ['snowflake'], ['confetti_ball'], ['balloon'], ['gift'], ['trophy'], ['medal'], ['crown'],
  ['dart'], ['heavy_check_mark', 'check'], ['ballot_box_with_check'], ['x'], ['warning'], ['no_entry'],
  ['no_entry_sign'], ['exclamation', 'heavy_exclamation_mark'], ['question'], ['bangbang'], ['rotating_light'],
  ['construction'], ['red_circle'], ['large_green_circle', 'green_circle'], ['large_blue_circle'], ['hourglass'],
  ['stopwatch'], ['alarm_clock'], ['calendar'], ['bell'], ['mega'], ['speech_balloon'], ['thought_balloon'],
  ['memo', 'pencil'], ['pushpin'], ['link'], ['paperclip'], ['lock'], ['key'], ['mag'], ['bulb'], ['gear'],
  ['wrench'], ['hammer_and_wrench'], ['computer'], ['bug'], ['bar_chart'], ['chart_with_upwards_trend'],
  ['chart_with_downwards_trend'], ['moneybag'], ['package'], ['email'], ['books'], ['coffee'], ['tea'], ['beer'],
  ['beers'], ['pizza'], ['cake'], ['cookie'], ['apple'], ['seedling'], ['cactus'], ['sunflower'], ['cat'], ['dog'],
  ['fox_face'], ['unicorn'], ['bee'], ['turtle'], ['octopus'], ['penguin'], ['whale'], ['snake'], ['checkered_flag'],
  ['triangular_flag_on_post'], ['airplane'], ['ship'], ['house'], ['new'], ['cool'], ['ok'], ['sos'], ['up'],
  ['arrow_up'], ['arrow_down'], ['repeat'], ['arrows_counterclockwise'], ['heavy_plus_sign'], ['heavy_minus_sign'],
];

export interface EmojiChoice {
  /** The name stored and shown (`:+1:`). */
  name: string;
  aliases: string[];
  glyph: string;
}

export const EMOJI_CHOICES: EmojiChoice[] = CHOICES.filter(([name]) => emojiFor(name) !== undefined).map(([name, ...aliases]) => ({
  name,
  aliases,
  glyph: emojiFor(name) as string,
}));

/** Choices whose name or an alias holds the query (colons and case ignored): names that start with it first. */
export function searchEmoji(query: string, choices: EmojiChoice[] = EMOJI_CHOICES): EmojiChoice[] {
  const q = query.trim().toLowerCase().replace(/^:+|:+$/g, '');
  if (q === '') return choices;
  const starts: EmojiChoice[] = [];
  const contains: EmojiChoice[] = [];
  for (const c of choices) {
    const names = [c.name, ...c.aliases];
    if (names.some((n) => n.startsWith(q))) starts.push(c);
    else if (names.some((n) => n.includes(q) || n.replace(/_/g, ' ').includes(q))) contains.push(c);
  }
  return [...starts, ...contains];
}

/** The glyph of a reaction's name; an unknown name (another client's custom emoji) shows as `:name:`. */
export function reactionGlyph(name: string): string {
  return emojiFor(name) ?? `:${name}:`;
}
