// Who sees a roll: the form offers only the modes the server takes. A roll as a character,
// or aimed at characters, cannot be `self` (PROTOCOL.md, contract §7–8: the GMs see what it
// spends and what it does), so « Moi seul » is disabled then, said why in a line a phone
// shows (no tooltip: phones cannot hover), and the form falls back to « Moi et le MJ »,
// which hides the roll from the other players just as well. The quick rolls submit the
// form: they take the same mode.
import { currentCharacter } from "./characters.js";
import { $, t } from "./page.js";
import { readTargets } from "./targets.js";

const modeInput = (mode) => document.querySelector(`#roll-form input[name="mode"][value="${mode}"]`);

/** Offer « Moi seul » or not, as the form stands (its character, its targets). */
export function syncModes() {
  const alone = modeInput("self");
  const note = $("mode-note");
  if (!alone || !note) return;
  const why = currentCharacter() ? "mode.self.character"
    : readTargets("roll-target").length ? "mode.self.targets" : "";
  alone.disabled = Boolean(why);
  alone.closest("label")?.classList.toggle("unavailable", Boolean(why));
  if (why && alone.checked) modeInput("gm").checked = true;
  note.hidden = !why;
  note.textContent = why ? t(why) : "";
}
