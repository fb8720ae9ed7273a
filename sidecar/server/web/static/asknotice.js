// The ask waiting for this player, where the player is: a bar at the bottom of the screen
// with its button, while neither its card (at the top of the page) nor its line in the log
// is in view — a phone player reading far down the log sees neither. It moves nothing: the
// page keeps its scroll, the line being read stays where it is.
import { answerButton, askedText, pendingFor } from "./asks.js";
import { el, local, state, t } from "./page.js";

const WORDS = {
  title: { fr: "Le MJ vous demande un jet", en: "The GM asks you for a roll" },
};

/** « +1 autre demande en haut de la page », « +2 autres demandes… » ("1 other ask…"). */
const more = (count) => (count === 1
  ? local({ fr: "+1 autre demande en haut de la page", en: "+1 other ask at the top of the page" })
  : local({ fr: `+${count} autres demandes en haut de la page`, en: `+${count} other asks at the top of the page` }));

/** The asks still waiting for this page's seat, newest first. */
function waiting() {
  return [...(state.asks ?? new Map()).keys()].map(pendingFor).filter(Boolean)
    .sort((a, b) => (b.event.seq ?? 0) - (a.event.seq ?? 0));
}

function inView(node) {
  if (!node || node.offsetParent === null) return false;
  const box = node.getBoundingClientRect();
  return box.height > 0 && box.bottom > 0 && box.top < window.innerHeight;
}

/** Whether one of the ask's own buttons (its card's, its log line's) is on the screen. */
const answerable = (id) => inView(document.getElementById(`ask-roll-${id}`))
  || inView(document.getElementById(`ask-roll-log-${id}`));

function notice() {
  let node = document.getElementById("ask-notice");
  if (!node) {
    node = el("div", { id: "ask-notice", class: "ask-notice", role: "region", hidden: true });
    // Room under the page's end for the bar: a block of its own (a padding on <body> would
    // stop the browser keeping the line being read in place: scroll anchoring).
    document.body.append(el("div", { id: "ask-notice-room", class: "ask-notice-room", hidden: true }), node);
    follow();
  }
  return node;
}

/**
 * Show or hide the bar. `rebuild`: the asks changed (a new one, an answer on its way),
 * draw its contents again; while scrolling only what it shows is checked (its button keeps
 * the focus).
 */
export function renderAskNotice({ rebuild = true } = {}) {
  const node = notice();
  const asks = waiting();
  const item = asks.find((ask) => !answerable(ask.event.ask));
  node.hidden = !item;
  document.getElementById("ask-notice-room").hidden = !item;
  if (!item) return;
  const id = item.event.ask;
  if (!rebuild && node.dataset.ask === id && node.dataset.lang === state.lang) return;
  node.dataset.ask = id;
  node.dataset.lang = state.lang;
  node.setAttribute("aria-label", local(WORDS.title));
  const asked = askedText(item.event);
  node.replaceChildren(
    el("p", { class: "ask-notice-text", "aria-live": "polite" },
      el("strong", { text: local(WORDS.title) }),
      asked ? el("span", { class: "ask-what", text: ` — ${t("ask.what", { what: asked })}` }) : null,
      asks.length > 1 ? el("small", { class: "hint", text: ` (${more(asks.length - 1)})` }) : null),
    answerButton(id, "notice"));
}

/** The first line on the screen: a log's line, else a card (where the person reads). */
function readingLine() {
  for (const node of document.querySelectorAll("#log > li, #table .card")) {
    const box = node.getBoundingClientRect();
    if (box.height > 0 && box.top >= 0 && box.top < window.innerHeight) return node;
  }
  return null;
}

/**
 * Make `change` (an ask arriving: its card at the top, its line at the top of the log)
 * without moving what the person reads, when scrolled down: the browser's own scroll
 * anchoring does it only when it picked its anchor before the change, not always.
 */
export function keepPlace(change) {
  const line = window.scrollY > 0 ? readingLine() : null;
  const before = line?.getBoundingClientRect().top;
  change();
  if (!line?.isConnected) return;
  const moved = line.getBoundingClientRect().top - before;
  if (Math.abs(moved) >= 1) window.scrollBy(0, moved);
}

let frame = 0;

/** Follow the scroll (once a frame at most): the bar comes when the buttons leave the screen. */
function follow() {
  const check = () => {
    if (frame) return;
    frame = requestAnimationFrame(() => {
      frame = 0;
      renderAskNotice({ rebuild: false });
    });
  };
  window.addEventListener("scroll", check, { passive: true });
  window.addEventListener("resize", check);
}
