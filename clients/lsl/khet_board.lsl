// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// khet_board.lsl: an in-world Khet board played through khetd's HTTP/JSON
// gateway (docs/http-api.md). The board's first script, in its root prim:
// the requests, and the events khetd pushes to the board's URL (or, when
// it cannot, the long poll), the game's state (position, seats and
// tokens, offers, clocks, the last moves), what a touch does, and which
// menu or message whom gets. Three more scripts in the same prim do the
// rest: khet_render.lsl draws (pieces, laser, markers, sparks, tint,
// scale) and finds the square, piece and legal moves a touch lands on,
// khet_words.lsl speaks (every word the board says, its dialogs and hover
// text, in the session's language), khet_keep.lsl keeps a copy of what
// must outlive a reset of this script (the session, its tokens, the
// seats) and holds the board's URL, checking each delivery's signature. A
// re-rez or a region restart keeps this script's state: it drops the
// requests in flight, reads the board again from the server and asks for
// a new URL.
//
// The protocol between the scripts: llMessageLinked(LINK_THIS, number,
// text, key); a script hears its own messages too, so each acts only on
// the numbers sent to it. The receiving script's header says what each
// text holds.
//   to khet_render.lsl: 7101 board "<edge>|<position>", 7102 look
//     "<scheme> <metres>", 7103 laser, 7104 hits, 7105 targets "e5 f5",
//     7106 debug, 7107 moves (the side to move's legal moves, khetd's
//     "lm"), 7108 pick (a chosen piece's moves; key: who chose it)
//   from khet_render.lsl: 7201 ready (send everything again), 7202 refused
//     "<metres> <size>" (a scale the region refused: told to the owner and
//     the server's setting put back), 7203 touched "<square>|<token>|
//     <moves>|<ends>" (key: who touched; moves "+": ask khetd; ends: the
//     moves of the piece they chose that end there)
//   to khet_keep.lsl: 7301 save (the state, see save()), 7302 ask, 7303
//     url ("1": a new URL for pushed updates, "": none), 7304 secret
//   from khet_keep.lsl: 7401 kept (the state it keeps; "" none), 7402 url
//     (granted, or "" denied), 7403 pushed (a delivery, its signature
//     checked)
//   to khet_words.lsl: 7501 say, 7502 menu (key: the person), 7503 status,
//     7504 lang
//   from khet_words.lsl: 7601 pressed (a button's id; key: the person),
//     7602 ready (send lang and status again)
//
// clients/lsl/README.md tells an owner how to set it up. Every route the
// script calls is written below as a literal path template ("{id}" and the
// other names in braces are filled in by route()); the replay test
// (clients/lsl/test/) checks these templates against its transcript.

// The version of the board's four scripts: khetd's build reads it from
// this line and names it in GET /v1/version (Settings > Update).
string BOARD_SCRIPTS = "2026.11.29";

// ---- Link messages -------------------------------------------------------------
integer KR_BOARD = 7101;     // to khet_render.lsl
integer KR_LOOK = 7102;
integer KR_LASER = 7103;
integer KR_HITS = 7104;
integer KR_TARGETS = 7105;
integer KR_DEBUG = 7106;
integer KR_MOVES = 7107;
integer KR_PICK = 7108;
integer KB_READY = 7201;     // from khet_render.lsl
integer KB_REFUSED = 7202;
integer KB_TOUCHED = 7203;
integer KK_SAVE = 7301;      // to khet_keep.lsl
integer KK_ASK = 7302;
integer KK_URL = 7303;
integer KK_SECRET = 7304;
integer KB_KEPT = 7401;      // from khet_keep.lsl
integer KB_URL = 7402;
integer KB_PUSHED = 7403;
integer KW_SAY = 7501;       // to khet_words.lsl
integer KW_MENU = 7502;
integer KW_STATUS = 7503;
integer KW_LANG = 7504;
integer KB_PRESSED = 7601;   // from khet_words.lsl
integer KB_WORDS = 7602;

// ---- Limits ----------------------------------------------------------------
integer BUDGET = 20;         // requests per 20 s, below the region's 25
float   WINDOW = 20.0;
integer MAX_TRIES = 5;       // attempts of one action on 429/499/5xx
float   LOST = 65.0;         // a request unanswered this long is lost
float   KEEPER = 5.0;        // how long start() waits for khet_keep.lsl
float   QUIET = 60.0;        // pushes silent this long: ask khetd whether it still pushes
float   AGAIN = 600.0;       // no pushes: ask for a URL again after this long
integer HINT_MS = 5000;      // a hint's search deadline (suggest's timeoutMs)
// Every request but a hint asks for the compact view (?view=compact),
// whose answers are at most 2048 bytes: LSL's default body limit, never
// raised. A hint's answer (SuggestMove at level 3) is about 530 bytes.

// What an answer is for (the action slot holds one at a time).
integer K_CREATE = 1;
integer K_SETUP = 2;
integer K_JOIN = 3;
integer K_LEAVE = 4;
integer K_COMPUTER = 5;
integer K_SETTINGS = 6;
integer K_RESET = 7;
integer K_REFRESH = 8;
integer K_MOVES = 9;
integer K_MOVE = 10;
integer K_GAME = 11;         // resign, draws, takebacks
integer K_HINT = 12;
integer K_VERSION = 13;      // Settings > Update

// ---- State -------------------------------------------------------------------
string  gServer;           // base URL, no trailing slash
// The long poll's waitSeconds: 25 in Second Life; 2 elsewhere, where a
// region's script HTTP pool holds the board's other requests behind a
// waiting poll (OpenSimulator 0.9.2); "wait=" in the notecard sets it.
integer gWait = -1;
integer gDebug;
string  gId;               // session id; "" until the owner picks a setup
string  gOwnerToken;
integer gVersion;          // the last version applied
string  gStatus;           // "W", "P" or "F"; "" without a board
string  gTurn;             // "s" or "r"
string  gPos;              // position notation
integer gQuiet;
string  gScheme = "classic";
string  gLang = "en";      // the session's language
integer gHints = TRUE;     // the session allows hints
string  gClock = "none";   // the clock of the setups chosen next (clockRules())
list    gPlayers;          // [avatar, side "s"/"r", token] per seat held here
string  gSilver;           // the seats' players as the server names them
string  gRed;
string  gRes;              // the result: "S", "R", "D" or ""; gWhy how it ended
string  gWhy;
string  gDraw;             // the side offering a draw, or ""
string  gTakeback;         // the side asking for a takeback, or ""
string  gClk;              // the compact view's clocks ("287 300 s"), or ""
list    gLast;             // the game's last moves, at most 3, oldest first
integer gEnded;            // the game ended and no seat changed since

list    gSent;             // llGetTime() of recent requests (the budget)
key     gPollKey = NULL_KEY;
float   gPollDue = -1.0;   // when to poll next; -1: not scheduled
float   gPollSent;
integer gPollFails;
// The poll's slot also carries the requests about pushed updates: what is
// in it, 0 the long poll, 1 registering gUrl, 2 asking whether khetd still
// pushes. While khetd pushes (gPushed) the board does not long-poll.
integer gPollKind;
string  gUrl;              // a URL for pushed updates to register, or ""
integer gPushed;           // khetd pushes this board's events to its URL
float   gPushAt;           // when a push (or the answer that it still pushes) came
float   gUrlDue = -1.0;    // when to ask for a URL again; -1: not scheduled
integer gPushTold;         // the owner has heard why the board polls
integer gPushGot;          // a delivery came since the URL was registered

key     gActKey = NULL_KEY;  // the action in flight, or NULL_KEY
float   gActDue = -1.0;      // a retry waiting for its time; -1: none
float   gActSent;
integer gActKind;
string  gActMethod;
string  gActPath;
string  gActBody;
string  gActToken;
key     gActWho;
integer gActTries;
string  gActArg;           // the setup id, side, square or move
string  gRetryMove;        // a move refused as stale, to send again
string  gRetryPos;

integer gLit;              // a chosen piece's targets or a hint are lit
integer gNotecardLine;
float   gRestoreDue = -1.0;  // waiting for khet_keep.lsl's copy until then

// ---- Requests ----------------------------------------------------------------

// `tpl` with every "{name}" in `names_values` replaced, {id} by the session.
string route(string tpl, list names_values) {
    names_values = ["{id}", gId] + names_values;
    integer i;
    for (i = 0; i < llGetListLength(names_values); i += 2) {
        tpl = llDumpList2String(llParseStringKeepNulls(tpl,
                  [llList2String(names_values, i)], []),
                  llList2String(names_values, i + 1));
    }
    return tpl;
}

// Sends one request if the budget allows; NULL_KEY if not (or throttled).
key send(string method, string path, string body, string token) {
    float now = llGetTime();
    while (llGetListLength(gSent) > 0 && now - llList2Float(gSent, 0) > WINDOW)
        gSent = llDeleteSubList(gSent, 0, 0);
    if (llGetListLength(gSent) >= BUDGET) return NULL_KEY;
    list opts = [HTTP_METHOD, method, HTTP_MIMETYPE, "application/json"];
    if (token != "") opts += [HTTP_CUSTOM_HEADER, "X-Khet-Token", token];
    key id = llHTTPRequest(gServer + path, opts, body);
    if (id != NULL_KEY) gSent += [now];
    return id;
}

// Starts an action for `who`; one at a time, retried through backOff().
act(integer kind, key who, string method, string path, string body,
    string token, string arg) {
    if (gActKey != NULL_KEY || gActDue >= 0.0) {
        say(who, "busy", []);
        return;
    }
    gActKind = kind; gActWho = who; gActMethod = method; gActPath = path;
    gActBody = body; gActToken = token; gActArg = arg; gActTries = 0;
    sendAction();
}

sendAction() {
    ++gActTries;
    gActSent = llGetTime();
    gActKey = send(gActMethod, gActPath, gActBody, gActToken);
    if (gActKey == NULL_KEY) backOff();
}

// Waits 2, 4, 8... s (at most 60) plus up to as much again, then retries;
// gives up after MAX_TRIES attempts.
backOff() {
    gActKey = NULL_KEY;
    if (gActTries >= MAX_TRIES) {
        gActDue = -1.0;
        say(gActWho, "down", []);
        keepPolling();
        return;
    }
    float wait = llPow(2.0, (float)gActTries);
    if (wait > 60.0) wait = 60.0;
    gActDue = llGetTime() + wait + llFrand(wait);
    schedule();
}

// What the poll's slot sends next: the registration of a URL granted for
// pushed updates; while khetd pushes, after QUIET seconds without a push,
// whether it still does; else the long poll.
poll() {
    if (gId == "" || gPollKey != NULL_KEY) return;
    gPollDue = -1.0;
    gPollKind = 0;
    if (gUrl != "") {
        gPollKind = 1;
        gPollKey = send("POST", route("/v1/sessions/{id}/callback", []),
            llList2Json(JSON_OBJECT, ["url", gUrl, "afterVersion", gVersion]),
            gOwnerToken);
    } else if (gPushed) {
        if (llGetTime() < gPushAt + QUIET) {
            gPollDue = gPushAt + QUIET;
            schedule();
            return;
        }
        gPollKind = 2;
        gPollKey = send("GET", route("/v1/sessions/{id}/callback", []), "", gOwnerToken);
    } else {
        gPollKey = send("GET", route(
            "/v1/sessions/{id}/events?afterVersion={after}&waitSeconds={wait}&view=compact",
            ["{after}", gVersion, "{wait}", gWait]), "", "");
    }
    gPollSent = llGetTime();
    if (gPollKey == NULL_KEY) pollLater();
}

// Polls unless a poll is in flight or waiting for its time.
keepPolling() {
    if (gPollKey == NULL_KEY && gPollDue < 0.0) poll();
}

pollLater() {
    float wait = llPow(2.0, (float)gPollFails);
    if (wait > 60.0) wait = 60.0;
    if (gPollFails < 6) ++gPollFails;
    gPollDue = llGetTime() + wait + llFrand(wait);
    schedule();
}

refresh(key who) {
    act(K_REFRESH, who, "GET", route("/v1/sessions/{id}?view=compact", []),
        "", "", "");
}

// The board is read again, unless an action is under way (then the next
// poll or check finds what is missing).
reread() {
    if (gActKey == NULL_KEY && gActDue < 0.0) refresh(NULL_KEY);
}

// Asks khet_keep.lsl for a URL for pushed updates (its answer: 7402 url);
// the board long-polls until khetd pushes.
askUrl() {
    gUrl = "";
    gPushed = FALSE;
    gUrlDue = -1.0;
    llMessageLinked(LINK_THIS, KK_URL, "1", NULL_KEY);
}

// No pushed updates (the region gave no URL, or khetd refused it): the
// board long-polls, asks for a URL again after AGAIN seconds, and the
// owner hears `why` once.
noPush(string why, string message) {
    gUrl = "";
    gPushed = FALSE;
    gUrlDue = llGetTime() + AGAIN;
    if (!gPushTold) say(NULL_KEY, why, [message]);
    gPushTold = TRUE;
    poll();
    schedule();
}

// The timer fires at the earliest pending retry or poll, the moment a
// request in flight counts as lost, the end of the wait for
// khet_keep.lsl's copy, or the time to ask for a URL again.
schedule() {
    float now = llGetTime();
    float next = -1.0;
    if (gActDue >= 0.0) next = gActDue;
    if (gActKey != NULL_KEY && (next < 0.0 || gActSent + LOST < next))
        next = gActSent + LOST;
    if (gPollKey != NULL_KEY && (next < 0.0 || gPollSent + LOST < next))
        next = gPollSent + LOST;
    if (gPollDue >= 0.0 && (next < 0.0 || gPollDue < next)) next = gPollDue;
    if (gRestoreDue >= 0.0 && (next < 0.0 || gRestoreDue < next)) next = gRestoreDue;
    if (gUrlDue >= 0.0 && (next < 0.0 || gUrlDue < next)) next = gUrlDue;
    if (next < 0.0) llSetTimerEvent(0.0);
    else if (next - now < 0.1) llSetTimerEvent(0.1);
    else llSetTimerEvent(next - now);
}

// ---- People, words and menus (khet_words.lsl) ---------------------------------

// A board deeded to a group is owned by the group itself.
integer deeded() {
    return llGetOwner() ==
        llList2Key(llGetObjectDetails(llGetKey(), [OBJECT_GROUP]), 0);
}

// The owner, or for a deeded board a member wearing its group.
integer isOwner(key who) {
    return who == llGetOwner() || (deeded() && llSameGroup(who));
}

// Tells `who` (NULL_KEY: the owner) the words `id` filled with `args`.
say(key who, string id, list args) {
    llMessageLinked(LINK_THIS, KW_SAY, llDumpList2String([id] + args, "\n"), who);
}

// Shows `who` the dialog `text` ("<words id> <arg>...") with `buttons`
// ("<id>" or "<id> <value>"); no buttons: a text box.
menu(key who, string text, list buttons) {
    llMessageLinked(LINK_THIS, KW_MENU, llDumpList2String([text] + buttons, "\n"), who);
}

// The hover text's contents (khet_words.lsl shows them).
showStatus() {
    llMessageLinked(LINK_THIS, KW_STATUS, llDumpList2String([gStatus, gTurn,
        gRes, gWhy, gSilver, gRed, gDraw, gTakeback, gClk,
        llDumpList2String(gLast, ", ")], "\n"), NULL_KEY);
}

// Announcements (the server's, in the session's language) go to local
// chat; a quiet board says only results.
announce(string text, integer result) {
    if (text != "" && (!gQuiet || result)) llSay(0, text);
}

// Where `who`'s seat starts in gPlayers, or -1; someone holding both seats
// acts for `side`.
integer seatIndex(key who, string side) {
    integer found = -1;
    integer i;
    for (i = 0; i < llGetListLength(gPlayers); i += 3) {
        if (llList2Key(gPlayers, i) == who &&
            (found < 0 || llList2String(gPlayers, i + 1) == side))
            found = i;
    }
    return found;
}

// `who`'s side, for the side to move if they hold both.
string seatOf(key who) {
    integer i = seatIndex(who, gTurn);
    if (i < 0) return "";
    return llList2String(gPlayers, i + 1);
}

// `who`'s token, as the player of `side` if they hold both seats.
string tokenAs(key who, string side) {
    integer i = seatIndex(who, side);
    if (i < 0) return "";
    return llList2String(gPlayers, i + 2);
}

string tokenOf(key who) {
    return tokenAs(who, gTurn);
}

string other(string side) {
    return llList2String(["s", "r"], side == "s");
}

dropSide(string side) {
    integer i;
    for (i = llGetListLength(gPlayers) - 3; i >= 0; i -= 3)
        if (llList2String(gPlayers, i + 1) == side)
            gPlayers = llDeleteSubList(gPlayers, i, i + 2);
    save();
}

// Sends khet_keep.lsl the state that must outlive a reset of this script:
// "<id>|<owner token>|<quiet>|<scheme>|<owner>|<clock>" and "|<avatar>|
// <side>|<token>" for each seat held here. Called whenever any of it
// changes.
save() {
    llMessageLinked(LINK_THIS, KK_SAVE, llDumpList2String([gId, gOwnerToken,
        gQuiet, gScheme, llGetOwner(), gClock] + gPlayers, "|"), NULL_KEY);
}

// The board is gone on the server: start again from nothing.
forget(key who, string why, list args) {
    say(who, why, args);
    newGame();
    gId = ""; gOwnerToken = ""; gPlayers = []; gVersion = 0; gStatus = "";
    gPos = ""; gRetryMove = ""; gSilver = ""; gRed = ""; gClk = "";
    unpick();
    gPollKey = NULL_KEY;  // a late answer about the old board is ignored
    gPollDue = -1.0;
    gUrl = ""; gPushed = FALSE; gUrlDue = -1.0;
    llMessageLinked(LINK_THIS, KK_URL, "", NULL_KEY);  // no URL any more
    save();
    show();
    laser("");
    showStatus();
}

// A rematch starts the next game at once with the seats swapped: the
// server moves each seat's player, token and all, to the other side
// (Session::SwapSeats), announcing no seat change. It shows as a game
// starting after one ended, with no seat changed since and the players'
// names crossed; the seats held here change sides with them.
rematched(string silver, string red) {
    if (!gEnded || silver != gRed || red != gSilver) return;
    integer i;
    for (i = 1; i < llGetListLength(gPlayers); i += 3)
        gPlayers = llListReplaceList(gPlayers,
            [other(llList2String(gPlayers, i))], i, i);
    save();
}

// ---- The board -------------------------------------------------------------------

// Whose piece a token is: "s" (its letter upper case), "r", or "" (none).
string sideOf(string token) {
    if (token == "") return "";
    if (llSubStringIndex("KPAXSEO", llGetSubString(token, 0, 0)) >= 0) return "s";
    return "r";
}

// May `side` choose a piece with `token` to move now?
integer canPick(string side, string token) {
    return gStatus == "P" && side != "" && side == sideOf(token);
}

// ---- What khet_render.lsl shows --------------------------------------------

// Tells the render script (the protocol at the top).
render(integer num, string text) {
    llMessageLinked(LINK_THIS, num, text, NULL_KEY);
}

// The pieces of gPos and the board's tint: the edges in the colour of the
// side to move, the whole board in the winner's at the end.
show() {
    render(KR_LOOK, gScheme + " 0");  // redraws only if the scheme changed
    string edge = "";
    if (gStatus == "P") edge = gTurn;
    else if (gStatus == "F" && (gRes == "S" || gRes == "R")) edge = gRes;
    render(KR_BOARD, edge + "|" + gPos);
}

// The laser of a move ("" takes it down); with debug=1 the owner hears it
// and this script's memory (the render script tells its own).
laser(string path) {
    render(KR_LASER, path);
    if (gDebug && path != "")
        llOwnerSay("laser " + path + "; board memory used " + (string)llGetUsedMemory());
}

// Lights a hint's `squares` ("e5 f5"); "" puts out what is lit and ends
// a choice.
light(string squares) {
    gLit = squares != "";
    render(KR_TARGETS, squares);
}

// `who` chose the piece on `sq`, whose moves are `moves` ("e4-e5 e4R"; ""
// none): the render script lights the squares they end on and, when `who`
// touches next, reports the moves that end there (touched()).
choose(key who, string sq, string moves) {
    if (moves == "") {
        say(who, "stuck", []);
        return;
    }
    gLit = TRUE;
    llMessageLinked(LINK_THIS, KR_PICK, moves, who);
    say(who, "touch", [sq, moves]);
}

// Ends a choice and puts out what is lit.
unpick() {
    if (gLit) light("");
}

// Everything the render script shows, sent again (it has just started,
// nothing lit and no piece chosen).
showAll() {
    render(KR_DEBUG, (string)gDebug);
    show();
    laser("");
    gLit = FALSE;
}

// A message from khet_render.lsl (the protocol at the top).
onRender(integer num, string text) {
    if (num == KB_READY) {
        showAll();
    } else if (num == KB_REFUSED) {
        list f = llParseString2List(text, [" "], []);
        say(NULL_KEY, "noscale", f);
        settings(NULL_KEY, "{\"scaleMeters\":" + llList2String(f, 1) + "}");
    }
}

// The settings a compact session or settings event carries (those absent
// are left as they are); khet_words.lsl hears the language.
readSettings(string json) {
    string v = llJsonGetValue(json, ["scheme"]);
    if (v != JSON_INVALID && v != "") gScheme = v;
    v = llJsonGetValue(json, ["quiet"]);
    if (v != JSON_INVALID) gQuiet = v == JSON_TRUE;
    v = llJsonGetValue(json, ["hints"]);
    if (v != JSON_INVALID) gHints = v == JSON_TRUE;
    v = llJsonGetValue(json, ["lang"]);
    if (v != JSON_INVALID && v != "") {
        gLang = v;
        llMessageLinked(LINK_THIS, KW_LANG, gLang, NULL_KEY);
    }
}

// A compact session or move: position (and with it the legal moves, "lm":
// none when absent), side to move, status, names, result, a draw offered,
// settings; the pieces and the hover text shown together.
applyBoard(string json) {
    string pos = llJsonGetValue(json, ["pos"]);
    if (pos != JSON_INVALID && pos != "") {
        gPos = pos;
        pos = llJsonGetValue(json, ["lm"]);
        if (pos == JSON_INVALID) pos = "";
        render(KR_MOVES, pos);
    }
    gTurn = llList2String(llParseString2List(gPos, [" "], []), 1);
    string v = llJsonGetValue(json, ["st"]);
    if (v != JSON_INVALID && v != "") gStatus = v;
    if (gStatus == "F") gEnded = TRUE;
    v = llJsonGetValue(json, ["silver"]);
    if (v != JSON_INVALID) gSilver = v;
    v = llJsonGetValue(json, ["red"]);
    if (v != JSON_INVALID) gRed = v;
    v = llJsonGetValue(json, ["res"]);
    if (v != JSON_INVALID) gRes = v;
    v = llJsonGetValue(json, ["why"]);
    if (v != JSON_INVALID) gWhy = v;
    v = llJsonGetValue(json, ["draw"]);
    if (v != JSON_INVALID) gDraw = v;
    readSettings(json);
    show();
    showStatus();
}

// A move played: the last three are kept for the hover text.
played(string move) {
    gLast += [move];
    if (llGetListLength(gLast) > 3) gLast = llDeleteSubList(gLast, 0, 0);
}

// A game is set up or begins, or the board is reset: no offers, no last
// moves, waiting for players.
newGame() {
    gStatus = "W"; gDraw = ""; gTakeback = ""; gLast = []; gEnded = FALSE;
}

// One event of `kind` from a long poll or a push (docs/http-api.md,
// compact view); or, as kind "mine", the answer to the board's own move,
// which has a move event's fields but "by" (the side that was to move).
applyEvent(string ev, string kind) {
    string by = llJsonGetValue(ev, ["by"]);
    if (kind == "mine") by = gTurn;
    // Any change but an offer ends a choice the change may have outdated.
    if (kind != "draw" && kind != "seat" && kind != "takeback") unpick();
    if (kind == "move" || kind == "mine") {
        if (by != gDraw) gDraw = "";  // the offer's opponent declines it
        gTakeback = "";               // a move lapses a takeback request
        played(llJsonGetValue(ev, ["move"]));
        applyBoard(ev);
        laser(llJsonGetValue(ev, ["laser"]));
        render(KR_HITS, llJsonGetValue(ev, ["rm"]));
    } else if (kind == "draw") {
        gDraw = by;
        showStatus();
    } else if (kind == "takeback") {
        // The players seated here for the other side are asked.
        gTakeback = by;
        showStatus();
        integer i;
        for (i = 0; i < llGetListLength(gPlayers); i += 3)
            if (llList2String(gPlayers, i + 1) != by)
                menu(llList2Key(gPlayers, i), "takebackq " + by, ["yes", "decline"]);
    } else if (kind == "takeback-answer") {
        gTakeback = "";
        if (llJsonGetValue(ev, ["accepted"]) == JSON_TRUE) {
            integer plies = (integer)llJsonGetValue(ev, ["plies"]);
            while (plies-- > 0 && gLast != [])
                gLast = llDeleteSubList(gLast, -1, -1);
            applyBoard(ev);
            laser("");
        } else {
            showStatus();
        }
    } else if (kind == "setup" || kind == "start") {
        if (kind == "start")
            rematched(llJsonGetValue(ev, ["silver"]), llJsonGetValue(ev, ["red"]));
        newGame();
        if (kind == "start") gStatus = "P";
        applyBoard(ev);
        laser("");
    } else if (kind == "over") {
        gStatus = "F";
        gDraw = "";
        gTakeback = "";
        applyBoard(ev);
    } else if (kind == "seat") {
        gEnded = FALSE;
        string side = llJsonGetValue(ev, ["color"]);
        string name = llJsonGetValue(ev, ["name"]);
        if (llJsonGetValue(ev, ["joined"]) == JSON_FALSE) {
            dropSide(side);
            name = "";
        }
        if (side == "s") gSilver = name;
        else gRed = name;
        showStatus();
    } else if (kind == "reset") {
        gPlayers = [];
        gSilver = "";
        gRed = "";
        newGame();
        save();
        showStatus();
        laser("");
    } else if (kind == "settings") {
        readSettings(ev);
        save();
        // The board's longest edge (x) follows the owner's Scale setting;
        // the render script scales it (and tells a refusal back).
        render(KR_LOOK, gScheme + " " + llJsonGetValue(ev, ["scale"]));
    } else if (kind == "deleted") {
        forget(NULL_KEY, "closed", []);
        return;
    }
    // A quiet board says results only: the end, or a move of its own
    // that ended the game (its announcement says so).
    announce(llJsonGetValue(ev, ["ann"]), kind == "over" ||
             (kind == "mine" && gStatus == "F"));
}

// ---- Answers ---------------------------------------------------------------------

// A compact session's clocks: its "clk", or none.
sessionClocks(string body) {
    gClk = llJsonGetValue(body, ["clk"]);
    if (gClk == JSON_INVALID) gClk = "";
}

// The events of a long poll's answer or of a delivery, each applied and
// announced once, in version order (those at or below gVersion were shown
// already). In a delivery (`pushed`) each must follow the one before:
// after a gap (a delivery lost) the board is read again instead. Answers
// the number of events.
integer applyEvents(string body, integer pushed) {
    integer n = 0;
    string ev = llJsonGetValue(body, ["events", n]);
    while (ev != JSON_INVALID) {
        integer v = (integer)llJsonGetValue(ev, ["v"]);
        if (pushed && v > gVersion + 1) {
            // Read again now, or after the action under way: khetd is
            // asked at once whether it still pushes, and from what.
            gPushAt = -QUIET;
            gPollDue = -1.0;
            reread();
            return n;
        }
        if (v > gVersion) {
            // The clocks as they stood after the event; an event without
            // them comes from a game without clocks (a setup chosen after
            // a game with them must not keep showing theirs).
            gClk = llJsonGetValue(ev, ["clk"]);
            if (gClk == JSON_INVALID) gClk = "";
            applyEvent(ev, llJsonGetValue(ev, ["kind"]));
            if (gId == "") return n;
            gVersion = v;
        }
        ev = llJsonGetValue(body, ["events", ++n]);
    }
    showStatus();
    return n;
}

// A compact session read whole (a refresh, or pushed when the board fell
// too far behind), unless it is older than what the board shows: what the
// poll would have told, had it not missed it.
reload(string body) {
    integer v = (integer)llJsonGetValue(body, ["v"]);
    if (v < gVersion) return;
    gVersion = v;
    if (llJsonGetValue(body, ["st"]) == "P")
        rematched(llJsonGetValue(body, ["silver"]), llJsonGetValue(body, ["red"]));
    gTakeback = llJsonGetValue(body, ["tb"]);
    string last = llJsonGetValue(body, ["last"]);
    if (last == "") gLast = [];
    else if (llList2String(gLast, -1) != last) gLast = [last];
    sessionClocks(body);
    applyBoard(body);
    laser(llJsonGetValue(body, ["laser"]));
}

// The answer in the poll's slot (gPollKind says what it was).
onPoll(integer code, string body) {
    string error = llJsonGetValue(body, ["error", "message"]);
    if (code == 200) {
        // The server answers again: an action waiting to be retried goes
        // now.
        if (gPollFails > 0 && gActDue >= 0.0) {
            gActDue = -1.0;
            sendAction();
        }
        gPollFails = 0;
        gPushAt = llGetTime();
        if (gPollKind == 1) {
            // Registered: khetd pushes what follows gVersion, signed with
            // the secret, which khet_keep.lsl checks.
            llMessageLinked(LINK_THIS, KK_SECRET, llJsonGetValue(body, ["secret"]),
                            NULL_KEY);
            gUrl = "";
            gPushed = TRUE;
            gPushGot = FALSE;
        } else if (gPollKind == 2) {
            // Still pushed; a push lost meanwhile: the board is read again.
            // (The session's version is "v"; khetd's full JSON would name
            // it "version".)
            string v = llJsonGetValue(body, ["v"]);
            if (v == JSON_INVALID) v = llJsonGetValue(body, ["version"]);
            if ((integer)v > gVersion) reread();
        } else {
            integer n = applyEvents(body, FALSE);
            if (gId == "") return;
            // An answer in under a second with nothing new: pause, don't
            // spin.
            if (n == 0 && llGetTime() - gPollSent < 1.0) {
                gPollDue = llGetTime() + 2.0;
                schedule();
                return;
            }
        }
        poll();
    } else if (gPollKind == 1 && code >= 400 && code < 500 && code != 499) {
        // khetd refused the URL (403: not a host it sends to): polls.
        if (code == 403) noPush("pushhost", error);
        else noPush("nopush", error);
    } else if (gPollKind == 2 && code >= 400 && code < 500 && code != 429 &&
               code != 499) {
        // khetd no longer pushes (404: it dropped the URL after failed
        // deliveries): a new URL, long polls meanwhile; but if none of
        // its deliveries ever came (an https URL whose certificate khetd
        // does not trust, say), the board polls and tries again later.
        if (gPushGot) {
            askUrl();
            poll();
        } else {
            noPush("nopush", error);
        }
    } else if (code == 404) {
        forget(NULL_KEY, "gone", [error]);
    } else if (code >= 400 && code < 500 && code != 429 && code != 499 &&
               gActKey == NULL_KEY && gActDue < 0.0) {
        refresh(NULL_KEY);  // the poll itself was refused: start over from now
    } else {
        pollLater();
    }
}

onAction(integer code, string body) {
    key who = gActWho;
    integer kind = gActKind;
    if (code == 429 || code == 499 || code >= 500 || code == 0) {
        // Unreachable or failing (not just busy): told at once, once, as
        // the retries may take a minute.
        if (code != 429 && gActTries == 1) say(who, "retrying", []);
        backOff();
        return;
    }
    gActDue = -1.0;
    // The server answers again: a poll waiting out its failures goes now.
    if (gPollFails > 0 && gPollDue >= 0.0) poll();
    string error = llJsonGetValue(body, ["error", "message"]);
    if (code != 200) {
        string why = llJsonGetValue(body, ["error", "code"]);
        if (kind == K_MOVE && why == "ABORTED") {
            // The board changed since the move was chosen: look again.
            gRetryMove = gActArg;
            gRetryPos = gPos;
            refresh(who);
            return;
        }
        if (code == 404 && kind != K_CREATE && kind != K_VERSION) {
            forget(who, "gone", [error]);
            return;
        }
        if (kind == K_SETUP && why == "FAILED_PRECONDITION") {
            // A game is in progress after all: reset it first?
            gStatus = "P";
            chooseSetup(who, gActArg);
        } else {
            say(who, "error", [error]);
        }
        keepPolling();
        return;
    }
    if (kind == K_CREATE) {
        // The owner token and the new board, as GetSession's compact view;
        // then a URL for pushed updates.
        gId = llJsonGetValue(body, ["id"]);
        gOwnerToken = llJsonGetValue(body, ["owner"]);
        save();
        reload(body);
        askUrl();
    } else if (kind == K_JOIN) {
        gPlayers += [who, gActArg, llJsonGetValue(body, ["token"])];
        save();
        say(who, "youplay", [gActArg]);
    } else if (kind == K_LEAVE) {
        dropSide(gActArg);
    } else if (kind == K_RESET && gActArg != "") {
        // Reset so that the setup chosen during the game follows.
        gStatus = "W";
        chooseSetup(who, gActArg);
    } else if (kind == K_REFRESH) {
        reload(body);
        string move = gRetryMove;
        gRetryMove = "";
        if (move != "") {
            if (gPos == gRetryPos && seatOf(who) == gTurn) sendMove(who, move);
            else say(who, "changed", []);
        }
        poll();
    } else if (kind == K_MOVES) {
        choose(who, gActArg, llJsonGetValue(body, ["moves"]));
    } else if (kind == K_MOVE) {
        // Shown at once when it is the board's next change (the move, and
        // the game's end if the move ended it). Otherwise the long poll or
        // a push brings what came before it, and then the move itself, in
        // order; or it brought them already (OpenSimulator runs a poll and
        // a move at once when its HTTP pool has grown).
        integer after = (integer)llJsonGetValue(body, ["v"]);
        if (after == gVersion + 1 + (llJsonGetValue(body, ["res"]) != "")) {
            gVersion = after;
            sessionClocks(body);  // the move's answer has the clocks after it
            applyEvent(body, "mine");
        }
    } else if (kind == K_HINT) {
        // The suggestion's squares: where the piece stands and, unless it
        // turns, where it goes.
        unpick();
        light(llStringTrim(llJsonGetValue(body, ["move", "from"]) + " "
            + llJsonGetValue(body, ["move", "to"]), STRING_TRIM));
        say(who, "hinted", [llJsonGetValue(body, ["move", "notation"])]);
    } else if (kind == K_VERSION) {
        // The board scripts khetd serves (a date, "2026.11.29"): newer
        // than these, or not.
        string have = llJsonGetValue(body, ["boardScripts"]);
        if (stamp(have) > stamp(BOARD_SCRIPTS))
            say(who, "newer", [have, gServer + llJsonGetValue(body, ["boardScriptsUrl"]),
                               BOARD_SCRIPTS]);
        else say(who, "current", [BOARD_SCRIPTS]);
    }
    keepPolling();
}

// A version "2026.11.29" as a number to compare (20261129); 0 for none.
integer stamp(string version) {
    return (integer)llDumpList2String(llParseString2List(version, ["."], []), "");
}

// ---- Actions ---------------------------------------------------------------------

sendMove(key who, string move) {
    act(K_MOVE, who, "POST", route("/v1/sessions/{id}:move?view=compact", []),
        llList2Json(JSON_OBJECT, ["move", llList2Json(JSON_OBJECT,
            ["notation", move]), "expectedVersion", gVersion,
            "requestId", (string)llGenerateKey()]), tokenOf(who), move);
}

// A clock of the Clock menu (khet_words.lsl) as the rules' timeControl:
// "5+3" 5 minutes each and 3 seconds more a move, "1d" a day a move.
string clockRules(string clock) {
    if (clock == "1d") return "{\"kind\":\"PER_MOVE\",\"perMoveMs\":86400000}";
    list f = llParseString2List(clock, ["+"], []);
    return "{\"kind\":\"FISCHER\",\"baseMs\":" + (string)(llList2Integer(f, 0) * 60000)
        + ",\"incrementMs\":" + (string)(llList2Integer(f, 1) * 1000) + "}";
}

// A new game from a setup ("use <id>", with the chosen clock) or a preset
// ("preset <id>", with its own rules): a new board if there is none yet.
// During a game the owner is asked first whether to reset it.
chooseSetup(key who, string button) {
    list f = llParseString2List(button, [" "], []);
    string value = llList2String(f, 1);
    list body = ["preset", value];
    if (llList2String(f, 0) == "use") {
        body = ["setupId", value];
        if (gClock != "none")
            body += ["rules", "{\"timeControl\":" + clockRules(gClock) + "}"];
    }
    if (gId == "")
        act(K_CREATE, who, "POST", route("/v1/sessions?view=compact", []),
            llList2Json(JSON_OBJECT, ["name", llGetObjectName()] + body),
            "", value);
    else if (gStatus == "P")
        menu(who, "resetq", ["resetsetup " + button, "cancel"]);
    else
        act(K_SETUP, who, "POST", route("/v1/sessions/{id}:chooseSetup?view=compact", []),
            llList2Json(JSON_OBJECT, body), gOwnerToken, button);
}

settings(key who, string update) {
    act(K_SETTINGS, who, "POST",
        route("/v1/sessions/{id}:updateSettings?view=compact", []),
        "{\"settings\":" + update + "}", gOwnerToken, "");
}

// A touch by `who` on `sq` ("" off the squares) holding `token` ("" none),
// whose legal moves are `moves`, as khet_render.lsl reports it (from the
// "lm" of the board's last position; "+": ask khetd), with `ends`, the
// moves of the piece `who` chose that end there (their touch ended the
// choice): one plays it (a dialog when two do: a stack moved whole or its
// top alone, a turn either way); else one of their pieces on their turn is
// chosen, its targets lit at once; anything else opens the menu. Until a
// reset script has read its board again, a touch is told the board is
// busy.
touched(key who, string sq, string token, string moves, string ends) {
    // Reset, this script has its session back but not the board yet: it
    // is read (act() says "busy" while that is under way).
    if (gId != "" && gStatus == "") {
        refresh(who);
        return;
    }
    string side = seatOf(who);
    list end = llParseString2List(ends, [" "], []);
    if (llGetListLength(end) == 1) {
        sendMove(who, ends);
        return;
    }
    if (end != []) {
        menu(who, "whichq", ["move " + llList2String(end, 0),
                             "move " + llList2String(end, 1)]);
        return;
    }
    if (canPick(side, token)) {
        if (side != gTurn) {
            say(who, "turn", [gTurn]);
            return;
        }
        if (moves == "+")  // khetd left its moves out of the answer
            act(K_MOVES, who, "GET", route(
                "/v1/sessions/{id}/legalMoves?square={square}&view=compact",
                ["{square}", sq]), "", "", sq);
        else choose(who, sq, moves);
        return;
    }
    list buttons = ["play"];
    if (isOwner(who)) buttons = ["setup", "play", "settings"];
    menu(who, "main", buttons);
}

// The Play menu: seats and the computer for anyone; for a seated player
// during a game the ways to end it, takebacks, a typed move, and a hint
// when it is their turn and the board allows hints.
playMenu(key who, string side) {
    list buttons = ["seat s", "seat r", "leave", "computer"];
    if (side != "" && gStatus == "P") {
        buttons += ["resign", "offer", "claim", "type", "takeback"];
        if (gDraw != "" && gDraw != side) buttons += ["accept"];
        if (gTakeback != "" && gTakeback != side) buttons += ["answer"];
        if (gHints && side == gTurn) buttons += ["hint"];
    }
    menu(who, "playq", buttons);
}

// A chosen button, as touched(), playMenu() and khet_words.lsl's
// submenus give it ("<id>" or "<id> <value>"): the owner's choices for
// the owner, a player's for a seated player.
onButton(key who, string button) {
    integer owner = isOwner(who);
    string side = seatOf(who);
    integer space = llSubStringIndex(button, " ");
    string b = button;
    string v = "";
    if (space > 0) {
        b = llGetSubString(button, 0, space - 1);
        v = llGetSubString(button, space + 1, -1);
    }
    // A seated player's button for a game's action, and the action's name
    // in its route.
    list games = ["yesresign", "resign", "offer", "offerDraw", "accept", "acceptDraw",
                  "claim", "claimRepetitionDraw", "takeback", "requestTakeback",
                  "yes", "acceptTakeback", "decline", "declineTakeback"];
    integer game = llListFindList(games, [b]);
    if (game % 2) game = -1;  // an action's name is no button
    if ((b == "use" || b == "preset") && owner) {
        chooseSetup(who, button);
    } else if (b == "clock" && owner) {
        gClock = v;
        save();
        say(who, "clockset", [v]);
    } else if (b == "play") {
        playMenu(who, side);
    } else if (game >= 0 && side != "") {
        // yes and decline answer a takeback as the other side's player
        string token = tokenOf(who);
        if (game >= 10) token = tokenAs(who, other(gTakeback));
        act(K_GAME, who, "POST", route("/v1/sessions/{id}:{action}?view=compact",
            ["{action}", llList2String(games, game + 1)]), "{}", token, "");
    } else if (b == "answer" && side != "") {
        menu(who, "takebackq " + gTakeback, ["yes", "decline"]);
    } else if (b == "hint" && side == gTurn && gStatus == "P") {
        act(K_HINT, who, "POST", route("/v1/sessions/{id}:suggest?timeoutMs={ms}",
            ["{ms}", HINT_MS]), "{}", "", "");
    } else if (b == "seat" && gId != "") {
        act(K_JOIN, who, "POST", route("/v1/sessions/{id}:join?view=compact", []),
            llList2Json(JSON_OBJECT, ["color", llList2String(["RED", "SILVER"], v == "s"),
                "playerName", llKey2Name(who)]), "", v);
    } else if (b == "leave") {
        if (side == "") say(who, "noseat", []);
        else act(K_LEAVE, who, "POST", route("/v1/sessions/{id}:leave?view=compact", []),
                 "{}", tokenOf(who), side);
    } else if (b == "level" && gId != "") {
        string token = tokenOf(who);
        if (token == "" && owner) token = gOwnerToken;
        act(K_COMPUTER, who, "POST",
            route("/v1/sessions/{id}:seatComputer?view=compact", []),
            "{\"level\":" + v + "}", token, "");
    } else if (b == "wait" && owner) {
        if (v == "0") settings(who, "{\"timeoutEnabled\":false}");
        else settings(who, "{\"timeoutEnabled\":true,\"timeoutSeconds\":" + v + "}");
    } else if ((b == "quiet" || b == "hints") && owner) {
        settings(who, "{\"" + b + "\":" + v + "}");  // v "true" or "false"
    } else if (b == "size" && owner) {
        settings(who, "{\"scaleMeters\":" + v + "}");
    } else if ((b == "scheme" || b == "lang") && owner) {
        settings(who, "{\"" + llList2String(["language", "colorScheme"], b == "scheme")
                 + "\":\"" + v + "\"}");
    } else if ((b == "reset" || b == "resetsetup") && owner && gId != "") {
        // Reset, or Reset then Setup (the setup chosen during the game)
        act(K_RESET, who, "POST", route("/v1/sessions/{id}:reset?view=compact", []), "{}",
            gOwnerToken, v);
    } else if (b == "update" && owner) {
        act(K_VERSION, who, "GET", route("/v1/version", []), "", "", "");
    } else if ((b == "move" || b == "typed") && side != "" && gId != "") {
        sendMove(who, v);  // a move button or a typed move
    }
}

// One line of the "khet config" notecard: "name=value", the value all that
// follows the first "=" (a URL may hold more).
readConfig(string line) {
    integer at = llSubStringIndex(line, "=");
    if (at < 1) return;
    string k = llStringTrim(llGetSubString(line, 0, at - 1), STRING_TRIM);
    string v = llStringTrim(llGetSubString(line, at + 1, -1), STRING_TRIM);
    if (k == "server") gServer = v;
    else if (k == "debug") gDebug = (integer)v;
    else if (k == "wait") gWait = (integer)v;
}

// The configuration is read: the board script's state comes back from
// khet_keep.lsl (restore()), or after KEEPER seconds without an answer
// the board starts afresh.
start() {
    if (llGetSubString(gServer, -1, -1) == "/") gServer = llGetSubString(gServer, 0, -2);
    if (gServer == "") {
        say(NULL_KEY, "nourl", []);
        return;
    }
    if (gWait < 0) {
        gWait = 2;
        if (llGetEnv("sim_channel") == "Second Life Server") gWait = 25;
    }
    if (gWait > 25) gWait = 25;
    // This script may have restarted alone: no piece is chosen any more.
    render(KR_DEBUG, (string)gDebug);
    render(KR_TARGETS, "");
    gRestoreDue = llGetTime() + KEEPER;
    schedule();
    llMessageLinked(LINK_THIS, KK_ASK, "", NULL_KEY);
}

// The state save() sent, as khet_keep.lsl kept it ("" none): the board
// goes on with its session, or starts afresh when there is none or it
// belongs to another owner.
restore(string saved) {
    gRestoreDue = -1.0;
    list f = llParseStringKeepNulls(saved, ["|"], []);
    if (llList2Key(f, 4) != llGetOwner()) f = [];  // a new owner
    gId = llList2String(f, 0);
    gOwnerToken = llList2String(f, 1);
    gQuiet = llList2Integer(f, 2);
    if (llList2String(f, 3) != "") gScheme = llList2String(f, 3);
    if (llList2String(f, 5) != "") gClock = llList2String(f, 5);
    integer i;
    for (i = 6; i + 2 < llGetListLength(f); i += 3)
        gPlayers += [llList2Key(f, i), llList2String(f, i + 1),
                     llList2String(f, i + 2)];
    if (gId == "") forget(NULL_KEY, "ready", []);
    else {
        refresh(NULL_KEY);
        askUrl();
    }
}

// Rezzed again or the region restarted: the script's state is as it was,
// but the requests in flight are gone for good, so is the URL for pushed
// updates, and the region counts its request budget afresh. The board is
// read again from the server, the long poll starts over from it, and a new
// URL is asked for.
resume() {
    gActKey = NULL_KEY;
    gActDue = -1.0;
    gPollKey = NULL_KEY;
    gPollDue = -1.0;
    gSent = [];
    if (gId != "") {
        refresh(NULL_KEY);
        askUrl();
    }
}

default {
    state_entry() {
        gServer = llStringTrim(llGetObjectDesc(), STRING_TRIM);
        if (llGetSubString(gServer, 0, 3) != "http") gServer = "";
        if (gServer == "" &&
            llGetInventoryType("khet config") == INVENTORY_NOTECARD)
            llGetNotecardLine("khet config", gNotecardLine);
        else
            start();
    }

    dataserver(key id, string data) {
        if (data == EOF) {
            start();
        } else {
            readConfig(data);
            llGetNotecardLine("khet config", ++gNotecardLine);
        }
    }

    on_rez(integer param) {
        resume();
    }

    // A new owner starts afresh (restore() refuses a copy kept for another
    // owner); a changed inventory may hold a new configuration, read again
    // after a reset across which the keeper's copy carries the game. A
    // changed link (an avatar sitting down, a prim linked) needs nothing:
    // this script keeps no list of prims.
    changed(integer change) {
        if (change & (CHANGED_OWNER | CHANGED_INVENTORY))
            llResetScript();
        else if (change & CHANGED_REGION_START) resume();
    }

    link_message(integer sender, integer num, string text, key id) {
        if (num == KB_PRESSED) {
            onButton(id, text);
        } else if (num == KB_KEPT) {
            // khet_keep.lsl's copy, asked for by start(); or, when not
            // waiting for one, the keeper has just started empty and gets
            // the state again (and asked for a URL again).
            if (gRestoreDue >= 0.0) restore(text);
            else if (gServer != "") {
                save();
                // Its URL went with it: a new one, long polls meanwhile.
                if (gId != "") {
                    askUrl();
                    gPollDue = -1.0;
                    poll();
                }
            }
        } else if (num == KB_TOUCHED) {
            list f = llParseStringKeepNulls(text, ["|"], []);
            touched(id, llList2String(f, 0), llList2String(f, 1), llList2String(f, 2),
                    llList2String(f, 3));
        } else if (num == KB_URL && gId != "") {
            // khet_keep.lsl's URL for pushed updates ("" none granted): it
            // is registered next in the poll's slot, and a long poll
            // waiting there is dropped (what it would bring is pushed, or
            // polled again if the registration fails).
            if (text == "") noPush("nourlin", "");
            else {
                gUrl = text;
                gPollKey = NULL_KEY;
                poll();
            }
        } else if (num == KB_PUSHED && gId != "") {
            // A delivery khetd pushed, its signature checked by
            // khet_keep.lsl: events as a long poll's answer has them, or
            // the compact session when the board fell too far behind.
            gPushAt = llGetTime();
            gPushGot = TRUE;
            if (llJsonGetValue(text, ["events"]) == JSON_INVALID) reload(text);
            else applyEvents(text, TRUE);
        } else if (num == KB_WORDS) {
            // khet_words.lsl (re)started: the language and the hover text
            // again, and for a board without a session the owner's cue,
            // lost if said before the words script ran.
            llMessageLinked(LINK_THIS, KW_LANG, gLang, NULL_KEY);
            showStatus();
            if (gServer != "" && gId == "" && gRestoreDue < 0.0)
                say(NULL_KEY, "ready", []);
        } else {
            onRender(num, text);
        }
    }

    http_response(key id, integer code, list meta, string body) {
        if (id == gPollKey) {
            gPollKey = NULL_KEY;
            onPoll(code, body);
        } else if (id == gActKey) {
            gActKey = NULL_KEY;
            onAction(code, body);
        }
    }

    timer() {
        float now = llGetTime();
        // A request that never answered: the poll starts again, the action
        // is retried (a move with the same requestId).
        if (gPollKey != NULL_KEY && now - gPollSent > LOST) {
            gPollKey = NULL_KEY;
            pollLater();
        }
        if (gActKey != NULL_KEY && now - gActSent > LOST) backOff();
        if (gActDue >= 0.0 && now >= gActDue) {
            gActDue = -1.0;
            sendAction();
        }
        if (gPollDue >= 0.0 && now >= gPollDue) poll();
        if (gUrlDue >= 0.0 && now >= gUrlDue) askUrl();
        if (gRestoreDue >= 0.0 && now >= gRestoreDue) {
            say(NULL_KEY, "nokeep", []);
            restore("");
        }
        schedule();
    }
}
