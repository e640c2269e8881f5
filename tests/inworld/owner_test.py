#!/usr/bin/python3
# Copyright 2026 The khet Authors
# SPDX-License-Identifier: Apache-2.0

"""inworld_owner: the board owner's menus in a real OpenSimulator region,
answered by their buttons, and the scripts' memory as the engine reports it.

One board, loaded with debug=1, and the estate owner (who owns it):
- Setup: Khet 1.0 > classic-1 (the board's session is made): the piece
  prims show it as khetd has it, tinted with the first scheme (classic).
- Presets: Casual (classic-2, hints and takebacks on); Club 15+10 (15 min
  + 10 s in the session and the hover text; the owner takes both seats and
  Silver's clock counts down in the hover text while Red's stands; the
  owner resigns); Tournament 2009 (physical facings: the position ends in
  " f" and every piece prim is turned the way its facing says, the
  Pharaohs facing their opponents; no clocks left in the hover text).
- Hints: Settings > Hints > Hints off: the Play menu has no Hint; Hints on:
  Play > Hint lights exactly the suggested move's squares.
- Scale: Settings > Scale > 6 m: the root is 6 x 4.8 x 0.2 m, every piece
  prim stands on its square at the new size, a touch on the grid face and
  one on a piece prim still choose a piece (its targets light, the markers
  sized to the squares).
- Colours: each other scheme of GET /v1/colorSchemes: every piece prim is
  tinted with that scheme's Silver or Red.
- Language: Settings > Language > Deutsch: the hover text and the next
  menus' texts and buttons are khet_words.lsl's German; English again.
- Clock and memory: Clock > 5+3, then Khet 2.0 > osiris: the session's
  clocks are Fischer 5 min + 3 s and run in the hover text; a move played
  by touch, whose laser splits on the Eyes of Horus; after the shot each
  script tells the owner llGetUsedMemory() (debug=1): every figure is
  printed and must stay under 64 KB less a 4 KB reserve.
Where a check waits for the board to show a choice, it runs while the
next menu's dialogs are walked (each dialog keeps the words script asleep
for llDialog's 1 s), before that menu's last button is pressed.
A picture of the board per scenario goes into the scratch folder. The
touches on pieces (Scale's two, the move's) and the move are timed as
inworld_games times them (inworld.py, "How fast a board answers"); the
figures are summed up at the end (print_latencies), never failed on.
"""

import re
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from inworld import (changed_at, check_script_errors, expected_pieces, Failure, LIT,
                     LSL, print_latencies, print_timings, record_latency, run_test, SHOWN,
                     TAKEN, test_parser, TOUCHED, World)

LIMIT = 65536 - 4096          # a Mono script's 64 KB less a stack reserve
HOVER_CLOCKS = re.compile(r"(\w+) (\d+):(\d\d)(?::(\d\d))? · (\w+) (\d+):(\d\d)"
                          r"(?::(\d\d))?(?: ▸ (\w+))?")
MEMORY = re.compile(r"(\w+) memory used (\d+)")
TARGETS = (0.2, 1.0, 0.2)     # the markers' colour for targets and hints


def words(language, scripts=LSL):
    """{word id: text} of khet_words.lsl (in `scripts`, the folder the
    board's scripts come from) in `language` (0 en, 1 de, 2 fr, 3 nl),
    read from its texts()."""
    source = (Path(scripts) / "khet_words.lsl").read_text()
    out = {}
    for wid, text in re.findall(r'if \(id == "((?:[^"\\]|\\.)*)"\) return '
                                r'"((?:[^"\\]|\\.)*)";', source):
        text = text.replace('\\"', '"').replace("\\\\", "\\")
        parts = text.split("|")
        out[wid] = parts[language] if len(parts) == 4 else parts[0]
    return out


class Owner:
    """The test's state: the world, the board, the owner and the session."""

    def __init__(self, world, board, owner):
        self.world = world
        self.board = board
        self.owner = owner
        self.session_id = None
        self.started = time.monotonic()
        self.timings = {}
        self.schemes = {s["id"]: s for s in world.khetd.get("/v1/colorSchemes")["schemes"]}
        self.drawing = ThreadPoolExecutor(1)
        self.pictures = []
        self.events = None  # the session's EventWatch

    def latency(self, step, start, end, what, prims=None, part=None):
        return record_latency(self.world.latencies, step, start, end, what, prims, part)

    def step(self, name):
        now = time.monotonic()
        self.timings[name] = now - self.started
        self.started = now

    def session(self, full=False):
        view = "" if full else "?view=compact"
        return self.world.khetd.get(f"/v1/sessions/{self.session_id}{view}")

    def wait_session(self, what, check, timeout=30):
        """The compact session once check(session) holds."""
        deadline = time.monotonic() + timeout
        while True:
            session = self.session()
            if check(session):
                return session
            if time.monotonic() > deadline:
                raise Failure(f"{what}: khetd's session never got there: {session}")
            time.sleep(0.2)

    def listen_from_now(self):
        """Owner.hear() will match only what is said from now on."""
        self.owner.chat_cursor = self.owner.call("chat")["cursor"]

    def no_clocks(self, what):
        """Waits until the hover text shows no clocks (the game has none);
        the prims."""
        return self.wait_prims(what, lambda p: None if not clocks_in(self.hover(p)) else
                               f"a game without clocks, but the hover text is "
                               f"{self.hover(p)!r}", timeout=10)

    def drain(self):
        """Takes every dialog the owner has been shown and not answered."""
        for _ in self.owner.call("dialogs")["dialogs"]:
            self.owner.dialog(timeout=1)

    def menu(self, *buttons, meanwhile=None):
        """The board's menu by its buttons (stale dialogs dropped first);
        meanwhile(), if given, runs when the last dialog is open, before
        its button is pressed: the checks of the previous choice."""
        dialog = self.open_menu(*buttons[:-1])
        if meanwhile is not None:
            meanwhile()
        self.owner.answer(dialog, buttons[-1])

    def open_menu(self, *buttons):
        """The dialog that pressing `buttons` in turn opens (not answered)."""
        self.drain()
        self.board.touch_edge(self.owner)
        dialog = self.owner.dialog(timeout=15)
        for button in buttons:
            self.owner.answer(dialog, button)
            dialog = self.owner.dialog()
        return dialog

    def wait_prims(self, what, check, timeout=30):
        """The prims once check(prims) is None; Failure with its last
        complaint and a picture if it never is."""
        deadline = time.monotonic() + timeout
        prims = self.board.prims(self.owner)
        while True:
            wrong = check(prims)
            if wrong is None:
                return prims
            if time.monotonic() > deadline:
                picture = self.board.picture(prims, self.world.folder / f"{what}-failed.png")
                raise Failure(f"{what}: {wrong} (after {timeout} s; picture {picture})")
            prims = self.board.next_prims(self.owner, prims)

    def picture(self, prims, name):
        """A picture of the board, drawn while the test goes on."""
        self.pictures.append(self.drawing.submit(
            self.board.picture, prims, self.world.folder / f"{name}.png"))

    def hover(self, prims):
        return prims[0]["text"]

    def show(self, what, position=None):
        """Waits until the piece prims show `position` (by default khetd's);
        the prims."""
        expected = expected_pieces(position or self.session()["pos"])

        def check(prims):
            shown = self.board.read(prims)[0]
            if shown == expected:
                return None
            return (f"the prims do not show the position; differing (square, shown "
                    f"or expected): {sorted(set(shown.items()) ^ set(expected.items()))}")
        return self.wait_prims(what, check)

    def legal(self, square):
        answer = self.world.khetd.get(f"/v1/sessions/{self.session_id}/legalMoves"
                                      f"?square={square}&view=compact")
        return answer["moves"].split()

    def marks(self, prims):
        return self.board.read(prims)[2]


def target_of(move):
    """The square a move's touch ends on (khet_board.lsl targetOf())."""
    return move[3:5] if len(move) >= 5 else move[0:2]


def close(a, b, tolerance):
    return all(abs(x - y) <= tolerance for x, y in zip(a, b))


def setup(t):
    """Setup > Khet 1.0 > classic-1, which makes the board's session."""
    t.menu("Setup", "Khet 1.0", "classic-1")
    session = t.world.khetd.wait_session(t.board.name)
    t.session_id = session["id"]
    t.events = t.world.khetd.watch(t.session_id)
    if session["setup"] != "classic-1":
        raise Failure(f"Setup > Khet 1.0 > classic-1 made a {session['setup']} session")
    prims = t.show("classic-1")
    pieces = t.board.read(prims)[0]
    if not [sq for sq, piece in pieces.items() if piece[0] == "O" and piece[3]]:
        raise Failure(f"classic-1: no Obelisk stack stands tall: {pieces}")
    t.wait_prims("the first scheme", tinted(t, "classic"))
    if words(0, t.world.scripts)["waiting"] not in t.hover(prims):
        raise Failure(f"classic-1: the hover text is {t.hover(prims)!r}")
    t.picture(prims, "setup-classic-1")
    t.step("setup classic-1")


def clocks_in(hover):
    """(Silver's seconds, Red's seconds, running side word) of the hover."""
    found = HOVER_CLOCKS.search(hover)
    if not found:
        return None
    g = found.groups()

    def seconds(minutes, secs, more):
        if more is None:
            return int(minutes) * 60 + int(secs)
        return (int(minutes) * 60 + int(secs)) * 60 + int(more)
    return seconds(g[1], g[2], g[3]), seconds(g[5], g[6], g[7]), g[8]


def presets(t):
    """Presets: Casual, Club 15+10 (clocks counting down), Tournament 2009
    (physical facings)."""
    t.menu("Setup", "Presets", "Casual")

    def casual():
        t.wait_session("Presets > Casual", lambda s: s["setup"] == "classic-2" and s["hints"])
        full = t.session(full=True)
        if full.get("preset") != "casual" or full["settings"].get("takebacksOff") or \
                full["settings"].get("hintsOff") or "timeControl" in full["rules"]:
            raise Failure(f"Presets > Casual: the session is {full.get('preset')!r} "
                          f"with settings {full['settings']}, rules {full['rules']}")
        t.picture(t.show("casual"), "preset-casual")
    t.menu("Setup", "Presets", "Club 15+10", meanwhile=casual)
    t.step("preset casual")
    t.wait_session("Presets > Club", lambda s: s.get("clk") == "900 900 " and not s["hints"])
    control = t.session(full=True)["rules"].get("timeControl", {})
    if (int(control.get("baseMs", 0)), int(control.get("incrementMs", 0))) != (900000, 10000):
        raise Failure(f"Presets > Club: the session's clocks are {control}")
    t.wait_prims("Club's clocks", lambda p: None if clocks_in(t.hover(p)) == (900, 900, None)
                 else f"the hover text is {t.hover(p)!r}")
    # The owner takes both seats: the game starts and Silver's clock runs.
    t.menu("Play", "Silver")
    t.owner.hear(r"^You play Silver")
    t.menu("Play", "Red")
    t.owner.hear(r"^You play Red")
    t.wait_session("both seats taken", lambda s: s["st"] == "P")
    first = t.wait_prims("Club's running clock", lambda p: None if (
        (clocks_in(t.hover(p)) or (0, 0, ""))[2] == "Silver"
        and clocks_in(t.hover(p))[0] < 900) else f"the hover text is {t.hover(p)!r}")
    silver, red, _ = clocks_in(t.hover(first))
    # The words script counts the running clock down itself, a second at a time.
    later = t.wait_prims("Club's clock counting down", lambda p: None if (
        clocks_in(t.hover(p))[0] <= silver - 2) else f"the hover text is {t.hover(p)!r}",
        timeout=10)
    silver_later, red_later, running = clocks_in(t.hover(later))
    if red_later != 900 or red != 900 or running != "Silver":
        raise Failure(f"Club: Red's clock moved or Silver's is not running: "
                      f"{t.hover(first)!r}, then {t.hover(later)!r}")
    server = int(t.session()["clk"].split()[0])
    if abs(server - silver_later) > 3:
        raise Failure(f"Club: the hover shows Silver {silver_later} s, khetd {server} s")
    t.picture(later, "preset-club-clocks")
    t.step("preset club (seats, clocks counting)")

    t.menu("Play", "Resign", "Yes, resign")
    t.wait_session("resigned", lambda s: s["st"] == "F" and s["res"] == "R")
    t.menu("Setup", "Presets", "Tournament 2009")
    session = t.wait_session("Presets > Tournament 2009",
                             lambda s: s["st"] == "P" and s["pos"].endswith(" f"))
    expected = expected_pieces(session["pos"])
    # docs/notation.md: every piece faces its opponent at the start.
    pharaohs = {piece[1]: piece[2] for piece in expected.values() if piece[0] == "K"}
    if pharaohs != {"s": 0, "r": 2}:
        raise Failure(f"tournament-2009: the Pharaohs' facings read {pharaohs}")
    prims = t.show("tournament-2009", session["pos"])
    t.no_clocks("Presets > Tournament 2009 after Club's clocks")
    shown = t.board.read(prims)[0]
    turned = sorted(sq for sq, p in shown.items() if p[0] in "KSE" and p[2] != 0)
    if not turned:
        raise Failure("tournament-2009: no Pharaoh or Scarab prim is turned")
    t.picture(prims, "preset-tournament-2009-facings")
    print(f"tournament-2009: {session['pos']}; turned prims on {' '.join(turned)}")
    t.step("preset tournament-2009 (facings)")


def hints(t):
    """Hints off: no Hint in the Play menu; on: Play > Hint lights its squares."""
    was = t.session()["hints"]  # the tournament preset has turned them off
    t.listen_from_now()
    t.menu("Settings", "Hints", "Hints off")
    t.wait_session("Hints off", lambda s: not s["hints"])
    if was:
        # The board says the settings event's announcement once it has it.
        t.owner.hear(r"^Settings: ")
    play = t.open_menu("Play")
    if "Hint" in play["buttons"] or "Take back" not in play["buttons"]:
        raise Failure(f"hints off: the Play menu is {play['buttons']}")
    t.listen_from_now()
    t.menu("Settings", "Hints", "Hints on")
    t.wait_session("Hints on", lambda s: s["hints"])
    t.owner.hear(r"^Settings: ")
    play = t.open_menu("Play")
    if "Hint" not in play["buttons"]:
        raise Failure(f"hints on: the Play menu is {play['buttons']}")
    t.owner.answer(play, "Hint")
    line = t.owner.hear(r"^Hint: ", timeout=30)["text"]
    move = re.match(r"Hint: (\S+);", line).group(1)
    squares = set(re.findall(r"[a-j][1-8]", move))
    prims = t.wait_prims("the hint's squares", lambda p: None if set(t.marks(p)) == squares
                         and all(close(c, TARGETS, 0.01) for c in t.marks(p).values())
                         else f"marks on {sorted(t.marks(p))}, the hint {move}")
    t.picture(prims, "hint")
    print(f"hint: {move}, lit {' '.join(sorted(squares))}")
    t.step("hints (off, on, a hint)")


def scale(t):
    """Scale > 6 m: sizes and positions follow, touches still land."""
    t.menu("Settings", "Scale", "6 m")

    def sized(prims):
        size, want = prims[0]["scale"], (6.0, 4.8, 0.2)
        return None if close(size, want, 0.01) else f"the root is {size}, not {want}"
    prims = t.wait_prims("Scale 6 m", sized)
    position = t.session()["pos"]
    prims = t.show("6 m", position)
    step = 0.6
    for prim in prims[1:]:
        if prim["name"] != "piece" or prim["pos"][2] <= 0:
            continue
        square = t.board.read([prims[0], prim])[0]
        (sq, (_, _, _, tall)), = square.items()
        height = step if tall else step / 2
        centre = (("abcdefghij".index(sq[0]) + 0.5) * step - 3.0,
                  (int(sq[1]) - 0.5) * step - 2.4, 0.1 + height / 2)
        if not close(prim["scale"], (0.8 * step, 0.8 * step, height), 0.01) or \
                not close(prim["pos"], centre, 0.01):
            raise Failure(f"6 m: the piece on {sq} is {prim['scale']} at {prim['pos']}, "
                          f"not {(0.8 * step, 0.8 * step, height)} at {centre}")
    # Touches: a Silver piece through the grid face, another through its prim.
    pieces = expected_pieces(position)
    movers = [sq for sq, p in sorted(pieces.items()) if p[1] == "s" and p[0] in "APS"
              and any(len(m) >= 5 for m in t.legal(sq))][:2]
    for how, sq in zip(("face", "prim"), movers):
        targets = {target_of(m) for m in t.legal(sq)}
        t.drain()
        if how == "face":
            sent = t.board.touch_square(t.owner, sq)
        else:
            prim = next(p for p in prims[1:] if p["name"] == "piece" and
                        list(t.board.read([prims[0], p])[0]) == [sq])
            sent = t.owner.call("touch", local_id=prim["local_id"], face=0,
                                st=[0.5, 0.5])["sent"]
        t.owner.hear(rf"^Touch a lit square to move {sq} ")
        lit = t.wait_prims(f"6 m, {sq} touched on its {how}",
                           lambda p: None if set(t.marks(p)) == targets else
                           f"marks on {sorted(t.marks(p))}, not {sorted(targets)}")
        t.latency(LIT, sent, changed_at(lit, ("mark",), targets, t.board), f"{sq} at 6 m",
                  lit)
        for prim in lit[1:]:
            if prim["name"] == "mark" and prim["pos"][2] > 0 and \
                    not close(prim["scale"][:2], (0.9 * step, 0.9 * step), 0.01):
                raise Failure(f"6 m: a marker is {prim['scale']}")
        t.picture(lit, f"scale-6m-{how}-{sq}")
        t.board.touch_edge(t.owner)  # drops the choice (and opens the menu)
        t.wait_prims("6 m, the choice dropped", lambda p: None if not t.marks(p)
                     else f"marks on {sorted(t.marks(p))}")
        # The menu that touch opened is taken here: it may come after the
        # marks went, and a later step's drain would miss it and answer it
        # instead of its own (seen once: "no button 'Colours'").
        menu = t.owner.dialog(message="^Khet$", timeout=15)
        if "Settings" not in menu["buttons"]:
            raise Failure(f"6 m: the edge's touch opened {menu['buttons']}, not the menu")
    t.step("scale (6 m, two touches)")


def tinted(t, scheme):
    """A check for wait_prims: every piece prim is tinted with `scheme`'s
    colour for its side (GET /v1/colorSchemes)."""
    pieces = expected_pieces(t.session()["pos"])
    colours = {side: tuple(t.schemes[scheme][name][c] / 255 for c in "rgb")
               for side, name in (("s", "silver"), ("r", "red"))}

    def check(prims):
        wrong = []
        for prim in prims[1:]:
            if prim["name"] != "piece" or prim["pos"][2] <= 0:
                continue
            (sq, _), = t.board.read([prims[0], prim])[0].items()
            want = colours[pieces[sq][1]] if sq in pieces else None
            # The script writes the colours to two decimals: within 2/255
            # a channel.
            if want is None or not close(prim["faces"][0]["color"][:3], want, 2 / 255):
                wrong.append((sq, [round(c * 255) for c in prim["faces"][0]["color"][:3]]))
        return f"{scheme}: pieces tinted otherwise: {wrong}" if wrong else None
    return check


def colours(t):
    """Settings > Colours > each other scheme (classic, the board's first,
    was checked with the first setup): the pieces' tints are its colours."""
    def check(scheme):
        def meanwhile():
            t.picture(t.wait_prims(f"Colours {scheme}", tinted(t, scheme)),
                      f"colours-{scheme}")
        return meanwhile
    previous = None
    for scheme in ("deflexion", "nile", "royal"):
        t.menu("Settings", "Colours", scheme, meanwhile=previous)
        previous = check(scheme)
    previous()
    t.step("colours (3 schemes)")


def language(t):
    """Settings > Language > Deutsch: hover and menus German; English again."""
    de, en = words(1, t.world.scripts), words(0, t.world.scripts)
    t.menu("Settings", "Language", "Deutsch")
    t.wait_session("Deutsch", lambda s: s["lang"] == "de")
    prims = t.wait_prims("German hover text", lambda p: None if (
        t.hover(p).startswith(f"{de['s']}: ") and f"\n{de['r']}: " in t.hover(p)
        and de["tomove"].replace("{W1}", de["s"]) in t.hover(p))
        else f"the hover text is {t.hover(p)!r}")
    t.picture(prims, "language-de")
    main = t.open_menu()
    if main["buttons"] != [de["setup"], de["play"], de["settings"]]:
        raise Failure(f"German: the menu's buttons are {main['buttons']}")
    t.owner.answer(main, de["settings"])
    settings = t.owner.dialog()
    # Settings > Update (checking for newer board scripts) where the board
    # has it.
    want = [de[w] for w in ("timeout", "quiet", "scale", "colours", "language", "hints",
                            "reset", "update") if w in de]
    if settings["message"] != de["settingsq"] or settings["buttons"] != want:
        raise Failure(f"German: the settings menu is {settings['message']!r} "
                      f"{settings['buttons']}, not {de['settingsq']!r} {want}")
    t.owner.answer(settings, de["language"])
    languages = t.owner.dialog()
    if languages["message"] != de["languageq"]:
        raise Failure(f"German: the language menu says {languages['message']!r}")
    t.owner.answer(languages, "English")
    t.wait_session("English again", lambda s: s["lang"] == "en")
    t.wait_prims("English hover text", lambda p: None if (
        t.hover(p).startswith(f"{en['s']}: ")
        and en["tomove"].replace("{W1}", en["s"]) in t.hover(p))
        else f"the hover text is {t.hover(p)!r}")
    main = t.open_menu()
    if main["buttons"] != [en["setup"], en["play"], en["settings"]]:
        raise Failure(f"English again: the menu's buttons are {main['buttons']}")
    t.step("language (Deutsch, English)")


def laser_squares(laser):
    """Every square a compact laser string's beams pass over."""
    out = set()
    for beam in laser.split():
        points = [beam[i:i + 2] for i in range(0, len(beam) - 1, 2)]
        for a, b in zip(points, points[1:]):
            fa, ra, fb, rb = ord(a[0]), int(a[1]), ord(b[0]), int(b[1])
            for f in range(min(fa, fb), max(fa, fb) + 1):
                for r in range(min(ra, rb), max(ra, rb) + 1):
                    out.add(chr(f) + str(r))
        out.update(points)
    return out


def memory(t):
    """osiris, a shot whose laser splits: each script's llGetUsedMemory()."""
    t.menu("Play", "Resign", "Yes, resign")
    t.menu("Setup", "Clock", "5+3", meanwhile=lambda: t.wait_session(
        "resigned", lambda s: s["st"] == "F"))
    t.owner.hear(r"play with: 5\+3")
    t.menu("Setup", "Khet 2.0", "osiris")
    # Both seats are still held: the game starts at once, Silver's clock runs.
    session = t.wait_session("osiris", lambda s: s["setup"] == "osiris" and s["st"] == "P")
    control = t.session(full=True)["rules"].get("timeControl", {})
    if (control.get("kind"), int(control.get("baseMs", 0)),
            int(control.get("incrementMs", 0))) != ("FISCHER", 300000, 3000):
        raise Failure(f"Clock 5+3 then osiris: the session's clocks are {control}")
    t.show("osiris", session["pos"])
    prims = t.wait_prims("Clock 5+3", lambda p: None if (clocks_in(t.hover(p)) or
                         (0, 0, 0))[1:] == (300, "Silver") and clocks_in(t.hover(p))[0] <= 300
                         else f"the hover text is {t.hover(p)!r}")
    t.picture(prims, "clock-5+3-osiris")
    t.step("clock 5+3, setup osiris")
    # Silver's laser at the start (docs/http-api.md) splits on the Eyes; a
    # step away from its path keeps it so.
    start_laser = "j1j4f4y f4f1S f4e4e5y e5f5f4y e5e8N f4e4o f4f1S"
    path = laser_squares(start_laser)
    pieces = expected_pieces(session["pos"])
    move = next(m for sq, p in sorted(pieces.items()) if p[1] == "s" and sq not in path
                for m in t.legal(sq) if len(m) >= 5 and m[2] == "-" and m[3:5] not in path)
    t.drain()
    before = t.session()
    targets = {target_of(m) for m in t.legal(move[0:2])}
    cursor = t.owner.call("chat")["cursor"]
    sent = t.board.touch_square(t.owner, move[0:2])
    t.owner.hear(rf"^Touch a lit square to move {move[0:2]} ")
    prims = t.wait_prims("osiris: the piece chosen", lambda p: None if (
        move[3:5] in t.marks(p) and targets <= set(t.marks(p)))
        else f"marks on {sorted(t.marks(p))}, not {sorted(targets)}")
    t.latency(LIT, sent, changed_at(prims, ("mark",), targets, t.board), move[0:2], prims)
    sent = t.board.touch_square(t.owner, move[3:5])
    moved = t.events.move(before["v"], f"osiris {move}")
    t.latency(TAKEN, sent, moved["time"], move, part=TOUCHED)
    session = t.wait_session(f"osiris {move}", lambda s: s["last"] == move)
    if "y" not in session["laser"]:
        raise Failure(f"osiris {move}: the laser {session['laser']!r} does not split")
    figures = {}
    deadline = time.monotonic() + 20
    while len(figures) < 4 and time.monotonic() < deadline:
        for line in t.owner.call("chat", after=cursor)["lines"]:
            found = MEMORY.search(line["text"])
            if found and line["type"] == "owner_say":
                figures[found.group(1)] = int(found.group(2))
        time.sleep(0.2)
    prims = t.show(f"osiris {move}", session["pos"])
    t.latency(SHOWN["on the board"], moved["time"], changed_at(prims, ("piece",)), move)
    beams = t.board.read(prims)[1]
    t.picture(prims, "memory-osiris-shot")
    print(f"osiris {move}: laser {session['laser']} ({len(beams)} beam prims up)")
    for script in ("board", "render", "words", "keep"):
        if script not in figures:
            raise Failure(f"osiris {move}: no memory figure from khet_{script}.lsl "
                          f"(heard {figures})")
    for script, used in figures.items():
        print(f"memory: khet_{script}.lsl llGetUsedMemory() {used} bytes "
              f"({100 * used / 65536:.0f}% of 64 KB)")
        if used > LIMIT:
            raise Failure(f"khet_{script}.lsl uses {used} bytes, above {LIMIT}")
    if not beams:
        raise Failure(f"osiris {move}: no beam prim is up after the shot")
    t.step("memory (a split shot)")


def main():
    parser = test_parser(__doc__)
    args = parser.parse_args()
    started = time.monotonic()
    with World(args.scratch, args.khetd, args.scripts) as world:
        world.start()
        board = world.add_board(debug=True)
        owner = world.avatar()
        board.find(owner)
        t = Owner(world, board, owner)
        t.step("world up")
        for scenario in (setup, presets, hints, scale, colours, language, memory):
            scenario(t)
        for picture in t.pictures:
            picture.result()
        check_script_errors(owner)
        print("steps: " + ", ".join(f"{what} {seconds:.1f} s"
                                    for what, seconds in t.timings.items()))
    world.timings["total, stopping included"] = time.monotonic() - started
    print_timings(world.timings.items())
    print_latencies(world.latencies)


if __name__ == "__main__":
    run_test(main)
