/**
 * The emoji the client can show by name (`:rocket:` in a message, `icon_emoji` of a webhook post). A compact set of
 * the names integrations and people use most, not Mattermost's full table: an unknown name stays as typed.
 */
const EMOJI: Record<string, string> = {
  '+1': '👍', thumbsup: '👍', '-1': '👎', thumbsdown: '👎', ok_hand: '👌', clap: '👏', wave: '👋', pray: '🙏',
  muscle: '💪', raised_hands: '🙌', point_up: '☝️', point_right: '👉', eyes: '👀', brain: '🧠',
  smile: '😄', smiley: '😃', grinning: '😀', grin: '😁', laughing: '😆', joy: '😂', rofl: '🤣', wink: '😉',
  blush: '😊', slightly_smiling_face: '🙂', upside_down_face: '🙃', heart_eyes: '😍', thinking_face: '🤔', thinking: '🤔',
  neutral_face: '😐', expressionless: '😑', unamused: '😒', sweat_smile: '😅', sweat: '😓', cry: '😢', sob: '😭',
  scream: '😱', angry: '😠', rage: '😡', sunglasses: '😎', nerd_face: '🤓', confused: '😕', worried: '😟',
  hushed: '😯', astonished: '😲', sleeping: '😴', mask: '😷', face_palm: '🤦', facepalm: '🤦', shrug: '🤷',
  skull: '💀', ghost: '👻', alien: '👽', robot_face: '🤖', robot: '🤖', poop: '💩', hankey: '💩', clown_face: '🤡',
  heart: '❤️', broken_heart: '💔', yellow_heart: '💛', green_heart: '💚', blue_heart: '💙', purple_heart: '💜',
  sparkles: '✨', star: '⭐', star2: '🌟', boom: '💥', collision: '💥', fire: '🔥', zap: '⚡', snowflake: '❄️',
  sunny: '☀️', cloud: '☁️', rainbow: '🌈', umbrella: '☔', ocean: '🌊', earth_americas: '🌎', globe_with_meridians: '🌐',
  tada: '🎉', confetti_ball: '🎊', balloon: '🎈', gift: '🎁', trophy: '🏆', medal: '🏅', crown: '👑', dart: '🎯',
  rocket: '🚀', airplane: '✈️', car: '🚗', ship: '🚢', construction: '🚧', rotating_light: '🚨', police_car: '🚓',
  white_check_mark: '✅', heavy_check_mark: '✔️', check: '✔️', ballot_box_with_check: '☑️', x: '❌',
  negative_squared_cross_mark: '❎', heavy_multiplication_x: '✖️', warning: '⚠️', no_entry: '⛔', no_entry_sign: '🚫',
  exclamation: '❗', heavy_exclamation_mark: '❗', question: '❓', grey_question: '❔', bangbang: '‼️',
  information_source: 'ℹ️', red_circle: '🔴', large_blue_circle: '🔵', white_circle: '⚪', black_circle: '⚫',
  green_circle: '🟢', yellow_circle: '🟡', orange_circle: '🟠', large_green_circle: '🟢',
  arrow_up: '⬆️', arrow_down: '⬇️', arrow_left: '⬅️', arrow_right: '➡️', arrows_counterclockwise: '🔄', repeat: '🔁',
  hourglass: '⌛', hourglass_flowing_sand: '⏳', stopwatch: '⏱️', alarm_clock: '⏰', clock1: '🕐', calendar: '📆',
  date: '📅', bell: '🔔', no_bell: '🔕', loudspeaker: '📢', mega: '📣', speech_balloon: '💬', thought_balloon: '💭',
  email: '📧', envelope: '✉️', inbox_tray: '📥', outbox_tray: '📤', package: '📦', memo: '📝', pencil: '📝',
  pencil2: '✏️', page_facing_up: '📄', clipboard: '📋', bookmark: '🔖', books: '📚', book: '📖', newspaper: '📰',
  link: '🔗', paperclip: '📎', pushpin: '📌', scissors: '✂️', lock: '🔒', unlock: '🔓', key: '🔑', mag: '🔍',
  bulb: '💡', gear: '⚙️', wrench: '🔧', hammer: '🔨', hammer_and_wrench: '🛠️', nut_and_bolt: '🔩', toolbox: '🧰',
  computer: '💻', desktop_computer: '🖥️', keyboard: '⌨️', floppy_disk: '💾', cd: '💿', dvd: '📀', iphone: '📱',
  telephone_receiver: '📞', battery: '🔋', electric_plug: '🔌', satellite: '📡', bar_chart: '📊',
  chart_with_upwards_trend: '📈', chart_with_downwards_trend: '📉', moneybag: '💰', dollar: '💵', credit_card: '💳',
  bug: '🐛', beetle: '🐞', ant: '🐜', snake: '🐍', whale: '🐳', dolphin: '🐬', octopus: '🐙', penguin: '🐧',
  cat: '🐱', dog: '🐶', fox_face: '🦊', unicorn: '🦄', bee: '🐝', turtle: '🐢', rabbit: '🐰', chicken: '🐔',
  coffee: '☕', tea: '🍵', beer: '🍺', beers: '🍻', pizza: '🍕', hamburger: '🍔', cake: '🍰', cookie: '🍪',
  apple: '🍎', banana: '🍌', seedling: '🌱', evergreen_tree: '🌲', deciduous_tree: '🌳', cactus: '🌵', tulip: '🌷',
  rose: '🌹', sunflower: '🌻', mushroom: '🍄', house: '🏠', office: '🏢', hospital: '🏥', factory: '🏭',
  checkered_flag: '🏁', triangular_flag_on_post: '🚩', white_flag: '🏳️', flag_white: '🏳️', triangular_ruler: '📐',
  100: '💯', hundred_points: '💯', one: '1️⃣', two: '2️⃣', three: '3️⃣', new: '🆕', free: '🆓', up: '🆙', cool: '🆒',
  ok: '🆗', sos: '🆘', id: '🆔', vs: '🆚', heavy_plus_sign: '➕', heavy_minus_sign: '➖', infinity: '♾️',
};

export function emojiFor(name: string): string | undefined {
  const key = name.replace(/^:|:$/g, '').toLowerCase();
  return Object.prototype.hasOwnProperty.call(EMOJI, key) ? EMOJI[key] : undefined;
}
