// khet_board.lsl: an in-world Khet board played through khetd's HTTP/JSON
// gateway (docs/http-api.md). The board's first script, in its root prim:
// touch menus (Setup, Play, Settings, and resigning, draws and repetition
// claims), moves by touching a piece and then one of its highlighted target
// squares, chat announcements, long polling for what others do, and the
// game's state. What the board shows (pieces, laser, markers, sparks, tint,
// scale) is drawn by khet_render.lsl in the same prim; what must outlive a
// reset of this script (the session, its tokens, the seats) is kept in
// script memory here and copied to khet_keep.lsl. A re-rez or a region
// restart drops the requests in flight and reloads the board from the
// server; a request that never answers is given up.
//
// The protocol between the scripts: llMessageLinked(LINK_THIS, number,
// text, NULL_KEY); a script hears its own messages too, so each acts only
// on the numbers sent to it. The receiving script's header says what each
// text holds.
//   to khet_render.lsl: 7101 board "<edge>|<ranks>", 7102 look "<scheme>
//     <metres>", 7103 laser, 7104 hits, 7105 targets "e5 f5", 7106 debug
//   from khet_render.lsl: 7201 ready (send everything again), 7202 refused
//     "<metres> <size>" (a scale the region refused: told to the owner and
//     the server's setting put back)
//   to khet_keep.lsl: 7301 save (the state, see save()), 7302 ask
//   from khet_keep.lsl: 7401 kept (the state it keeps; "" none)
//
// clients/lsl/README.md tells an owner how to set it up. Every route the
// script calls is written below as a literal path template ("{id}" and the
// other names in braces are filled in by route()); the replay test
// (clients/lsl/test/) checks these templates against its transcript.

// ---- Link messages (khet_render.lsl) -----------------------------------------
integer KR_BOARD = 7101;
integer KR_LOOK = 7102;
integer KR_LASER = 7103;
integer KR_HITS = 7104;
integer KR_TARGETS = 7105;
integer KR_DEBUG = 7106;
integer KB_READY = 7201;
integer KB_REFUSED = 7202;
// ---- Link messages (khet_keep.lsl) -------------------------------------------
integer KK_SAVE = 7301;
integer KK_ASK = 7302;
integer KB_KEPT = 7401;

// ---- Limits ----------------------------------------------------------------
integer BUDGET = 20;         // requests per 20 s, below the region's 25
float   WINDOW = 20.0;
integer WAIT = 25;           // long poll waitSeconds (LSL gives up after 60 s)
integer MAX_TRIES = 5;       // attempts of one action on 429/499/5xx
integer BOARD_FACE = 0;      // the root prim's face showing the squares
float   LOST = 65.0;         // a request unanswered this long is lost
float   KEEPER = 5.0;        // how long start() waits for khet_keep.lsl
// Every request asks for the compact view (?view=compact), whose answers
// are at most 2048 bytes: LSL's default body limit, never raised.

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
integer K_GAME = 11;         // resign, offer or accept a draw, claim one

// ---- State -------------------------------------------------------------------
string  gServer;           // base URL, no trailing slash
integer gDebug;
string  gId;               // session id; "" until the owner picks a setup
string  gOwnerToken;
integer gVersion;          // the last version applied
string  gStatus;           // "W", "P" or "F"
string  gTurn;             // "s" or "r"
string  gPos;              // position notation
list    gBoard;            // 80 piece tokens ("" empty), rank 8 first
integer gQuiet;
string  gScheme = "classic";
list    gPlayers;          // [avatar, side "s"/"r", token] per seat held here
string  gSilver;           // the seats' players as the server names them
string  gRed;
string  gRes;              // the result: "S", "R", "D" or ""; gWhy how it ended
string  gWhy;
string  gDraw;             // the side offering a draw, or ""
// The clocks from the compact view's "clk": seconds left for each side at
// llGetTime() gClkAt, the running side ("s", "r", ""); gClk "" when none.
string  gClk;
float   gClkSilver;
float   gClkRed;
string  gClkRunning;
float   gClkAt;
float   gClockDue = -1.0;  // the next redraw of a running clock; -1: none

list    gSent;             // llGetTime() of recent requests (the budget)
key     gPollKey = NULL_KEY;
float   gPollDue = -1.0;   // when to poll next; -1: not scheduled
float   gPollSent;
integer gPollFails;

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

integer gChannel;
string  gPick;             // the square of the piece chosen to move, or ""
list    gPickMoves;        // its legal moves
key     gPickWho;          // who chose it
integer gNotecardLine;
float   gRestoreDue = -1.0;  // waiting for khet_keep.lsl's copy until then

list SETUPS_2 = ["classic-2", "imhotep-2", "dynasty-2", "classic-2b",
                 "imhotep-2b", "dynasty-2b", "osiris", "isis"];
list SETUPS_1 = ["classic-1", "imhotep-1", "dynasty-1", "classic-1b",
                 "imhotep-1b", "dynasty-1b"];
// Scheme id, Silver, Red, beam (as the server's ListColorSchemes).
list SCHEMES = ["classic", "deflexion", "nile", "royal"];  // the colour schemes
list TIMEOUTS = ["Timeout off", 0, "15 min", 900, "30 min", 1800, "1 h", 3600,
                 "2 h", 7200, "6 h", 21600];
list SCALES = ["1 m", "2 m", "3 m", "4 m", "5 m", "6 m", "8 m", "10 m", "15 m",
               "20 m", "30 m"];

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
        tell(who, "The board is busy; try again in a moment.");
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
        tell(gActWho, "The Khet server does not answer; try again later.");
        keepPolling();
        return;
    }
    float wait = llPow(2.0, (float)gActTries);
    if (wait > 60.0) wait = 60.0;
    gActDue = llGetTime() + wait + llFrand(wait);
    schedule();
}

poll() {
    if (gId == "" || gPollKey != NULL_KEY) return;
    gPollKey = send("GET", route(
        "/v1/sessions/{id}/events?afterVersion={after}&waitSeconds={wait}&view=compact",
        ["{after}", gVersion, "{wait}", WAIT]), "", "");
    gPollSent = llGetTime();
    gPollDue = -1.0;
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

// The timer fires at the earliest pending retry, poll, clock tick, the
// moment a request in flight counts as lost, or the end of the wait for
// khet_keep.lsl's copy.
schedule() {
    float now = llGetTime();
    float next = -1.0;
    if (gActDue >= 0.0) next = gActDue;
    if (gActKey != NULL_KEY && (next < 0.0 || gActSent + LOST < next))
        next = gActSent + LOST;
    if (gPollKey != NULL_KEY && (next < 0.0 || gPollSent + LOST < next))
        next = gPollSent + LOST;
    if (gPollDue >= 0.0 && (next < 0.0 || gPollDue < next)) next = gPollDue;
    if (gClockDue >= 0.0 && (next < 0.0 || gClockDue < next)) next = gClockDue;
    if (gRestoreDue >= 0.0 && (next < 0.0 || gRestoreDue < next)) next = gRestoreDue;
    if (next < 0.0) llSetTimerEvent(0.0);
    else if (next - now < 0.1) llSetTimerEvent(0.1);
    else llSetTimerEvent(next - now);
}

// ---- Chat and menus ------------------------------------------------------------

// A board deeded to a group is owned by the group itself.
integer deeded() {
    return llGetOwner() ==
        llList2Key(llGetObjectDetails(llGetKey(), [OBJECT_GROUP]), 0);
}

// The owner, or for a deeded board a member wearing its group.
integer isOwner(key who) {
    return who == llGetOwner() || (deeded() && llSameGroup(who));
}

// NULL_KEY: the owner (nearby chat for a deeded board, which has no owner
// to hear llOwnerSay).
tell(key who, string text) {
    if (who != NULL_KEY) llRegionSayTo(who, 0, text);
    else if (deeded()) llWhisper(0, text);
    else llOwnerSay(text);
}

// Announcements go to local chat; a quiet board says only results.
announce(string text, integer result) {
    if (text != "" && (!gQuiet || result)) llSay(0, text);
}

menu(key who, string text, list buttons) {
    llDialog(who, text, buttons, gChannel);
}

string sideName(string side) {
    if (side == "s") return "Silver";
    return "Red";
}

// Where `who`'s seat starts in gPlayers, or -1. Someone holding both seats
// acts for the side to move.
integer seatIndex(key who) {
    integer found = -1;
    integer i;
    for (i = 0; i < llGetListLength(gPlayers); i += 3) {
        if (llList2Key(gPlayers, i) == who &&
            (found < 0 || llList2String(gPlayers, i + 1) == gTurn))
            found = i;
    }
    return found;
}

string seatOf(key who) {
    integer i = seatIndex(who);
    if (i < 0) return "";
    return llList2String(gPlayers, i + 1);
}

string tokenOf(key who) {
    integer i = seatIndex(who);
    if (i < 0) return "";
    return llList2String(gPlayers, i + 2);
}

dropSide(string side) {
    integer i;
    for (i = llGetListLength(gPlayers) - 3; i >= 0; i -= 3)
        if (llList2String(gPlayers, i + 1) == side)
            gPlayers = llDeleteSubList(gPlayers, i, i + 2);
    save();
}

// Sends khet_keep.lsl the state that must outlive a reset of this script:
// "<id>|<owner token>|<quiet>|<scheme>|<owner>" and "|<avatar>|<side>|
// <token>" for each seat held here. Called whenever any of it changes.
save() {
    llMessageLinked(LINK_THIS, KK_SAVE, llDumpList2String([gId, gOwnerToken,
        gQuiet, gScheme, llGetOwner()] + gPlayers, "|"), NULL_KEY);
}

// The board is gone on the server: start again from nothing.
forget(key who, string why) {
    tell(who, why);
    gId = ""; gOwnerToken = ""; gPlayers = []; gVersion = 0; gStatus = "";
    gPos = ""; gBoard = []; gRetryMove = ""; gSilver = ""; gRed = "";
    gDraw = "";
    readClocks("");
    unpick();
    gPollKey = NULL_KEY;  // a late answer about the old board is ignored
    gPollDue = -1.0;
    save();
    show();
    laser("");
    llSetText("Khet: touch Setup to start a board", <1, 1, 1>, 1.0);
}

// ---- The board -------------------------------------------------------------------

// The 80 tokens of a position, rank 8 first, files a..j.
list parseBoard(string pos) {
    string ranks = llList2String(llParseString2List(pos, [" "], []), 0);
    list out = [];
    integer n = llStringLength(ranks);
    integer i = 0;
    while (i < n) {
        string c = llGetSubString(ranks, i, i);
        integer kind = llSubStringIndex("KkPpAaXxSsEeOo", c);
        if (kind >= 0) {
            integer len = 1;
            if (kind < 2) len = 0;
            else if (kind < 4) len = 2;
            out += [llGetSubString(ranks, i, i + len)];
            i += len + 1;
        } else if (c == "/") {
            ++i;
        } else {
            integer empty = (integer)c;
            if (c == "1" && llGetSubString(ranks, i + 1, i + 1) == "0") {
                empty = 10;
                ++i;
            }
            ++i;
            while (empty-- > 0) out += [""];
        }
    }
    return out;
}

string squareName(integer file, integer rank) {
    return llGetSubString("abcdefghij", file, file) + (string)(rank + 1);
}

// Whose piece a token is: "s" (its letter upper case), "r", or "" (none).
string sideOf(string token) {
    if (token == "") return "";
    if (llSubStringIndex("KPAXSEO", llGetSubString(token, 0, 0)) >= 0) return "s";
    return "r";
}

// The square under a touch at `st` on the board's face (0..1 each way).
string stSquare(vector st) {
    if (st.x < 0.0) return "";
    integer file = (integer)(st.x * 10.0);
    integer rank = (integer)(st.y * 8.0);
    if (file > 9) file = 9;
    if (rank > 7) rank = 7;
    return squareName(file, rank);
}

// The square under a prim standing at `at` in the root's frame (a piece or
// a marker the render script put there); "" for one parked inside the board.
string posSquare(vector at) {
    vector size = llGetScale();
    if (at.z <= 0.0) return "";
    return stSquare(<at.x / size.x + 0.5, at.y / size.y + 0.5, 0.0>);
}

// The square a move ends on: "e4-e5", "f4=g3", "d1^d2" their second square,
// a turn ("j1L") its own.
string targetOf(string move) {
    if (llStringLength(move) >= 5) return llGetSubString(move, 3, 4);
    return llGetSubString(move, 0, 1);
}

// The chosen piece's moves that end on `sq`.
list movesTo(string sq) {
    list out = [];
    integer i;
    for (i = 0; i < llGetListLength(gPickMoves); ++i)
        if (targetOf(llList2String(gPickMoves, i)) == sq)
            out += llList2List(gPickMoves, i, i);
    return out;
}

// May `side` choose the piece on `sq` to move now?
integer canPick(string side, string sq) {
    return gStatus == "P" && side != "" && side == sideOf(tokenAt(sq));
}

string tokenAt(string sq) {
    integer file = llSubStringIndex("abcdefghij", llGetSubString(sq, 0, 0));
    integer rank = (integer)llGetSubString(sq, 1, 1) - 1;
    return llList2String(gBoard, (7 - rank) * 10 + file);
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
    render(KR_BOARD, edge + "|" + llList2String(llParseString2List(gPos, [" "], []), 0));
}

// The laser of a move ("" takes it down); with debug=1 the owner hears it
// and this script's memory (the render script tells its own).
laser(string path) {
    render(KR_LASER, path);
    if (gDebug && path != "")
        llOwnerSay("laser " + path + "; board memory used " + (string)llGetUsedMemory());
}

// The piece on `sq` is chosen: the render script lights its targets.
pick(key who, string sq, list moves) {
    gPick = sq; gPickMoves = moves; gPickWho = who;
    render(KR_TARGETS, targets());
    tell(who, "Touch a highlighted square to move " + sq + " ("
        + llDumpList2String(moves, " ") + "), or the piece itself to turn it.");
}

// The squares the chosen piece's moves end on, once each ("e5 f5"), or "".
string targets() {
    list squares = [];
    integer i;
    for (i = 0; i < llGetListLength(gPickMoves); ++i) {
        string target = targetOf(llList2String(gPickMoves, i));
        if (llListFindList(squares, [target]) < 0) squares += [target];
    }
    return llDumpList2String(squares, " ");
}

unpick() {
    if (gPick != "") render(KR_TARGETS, "");
    gPick = ""; gPickMoves = []; gPickWho = NULL_KEY;
}

// Everything the render script shows, sent again (it has just started).
showAll() {
    render(KR_DEBUG, (string)gDebug);
    show();
    laser("");
    render(KR_TARGETS, targets());
}

// A message from khet_render.lsl (the protocol at the top).
onRender(integer num, string text) {
    if (num == KB_READY) {
        showAll();
    } else if (num == KB_REFUSED) {
        list f = llParseString2List(text, [" "], []);
        tell(NULL_KEY, "The board cannot be scaled to " + (string)llList2Integer(f, 0)
            + " m here; it stays " + llList2String(f, 1) + " m.");
        settings(NULL_KEY, "{\"scaleMeters\":" + llList2String(f, 1) + "}");
    }
}

// A clock's seconds as "4:47" or "1:02:03".
string clockText(float seconds) {
    integer s = (integer)seconds;
    if (s < 0) s = 0;
    string mm = (string)(s / 60 % 60);
    string ss = llGetSubString("0" + (string)(s % 60), -2, -1);
    if (s >= 3600) return (string)(s / 3600) + ":" + llGetSubString("0" + mm, -2, -1) + ":" + ss;
    return mm + ":" + ss;
}

// The clocks from a compact answer's "clk" ("287 300 s"); an answer
// without one ("" given) means the game has none.
readClocks(string clk) {
    gClk = clk;
    list f = llParseStringKeepNulls(clk, [" "], []);
    gClkSilver = llList2Float(f, 0);
    gClkRed = llList2Float(f, 1);
    gClkRunning = llList2String(f, 2);
    gClkAt = llGetTime();
    gClockDue = -1.0;
}

// Hover text: the players, whose turn it is or the result, and the clocks
// ("Silver 4:47 · Red 5:00 ▸ Silver"), the running one counted down here
// every second between polls.
showStatus() {
    string text = "Silver: " + gSilver + "\nRed: " + gRed + "\n";
    if (gStatus == "W") text += "Waiting for players (touch Play)";
    else if (gStatus == "P") text += sideName(gTurn) + " to move";
    else if (gStatus == "F") {
        text += "Game over";
        if (gRes == "D") text += ": a draw";
        else if (gRes != "") text += ": " + sideName(llToLower(gRes)) + " wins";
        if (gWhy == "time_forfeit")
            text += " (" + sideName(llList2String(["r", "s"], gRes == "R")) + "'s time ran out)";
    }
    if (gDraw != "" && gStatus == "P") text += "\n" + sideName(gDraw) + " offers a draw";
    gClockDue = -1.0;
    if (gClk != "") {
        float silver = gClkSilver;
        float red = gClkRed;
        float gone = llGetTime() - gClkAt;
        if (gClkRunning == "s") silver -= gone;
        if (gClkRunning == "r") red -= gone;
        text += "\nSilver " + clockText(silver) + " · Red " + clockText(red);
        if (gClkRunning != "") {
            text += " ▸ " + sideName(gClkRunning);
            // Redraw when the running clock shows the next second.
            float left = silver;
            if (gClkRunning == "r") left = red;
            if (left > 0.0) gClockDue = llGetTime() + (left - llFloor(left)) + 0.05;
        }
    }
    llSetText(text, <1, 1, 1>, 1.0);
    schedule();
}

// A compact session or move: position, side to move, status, laser.
applyBoard(string json) {
    string pos = llJsonGetValue(json, ["pos"]);
    if (pos != JSON_INVALID && pos != "") {
        gPos = pos;
        gBoard = parseBoard(pos);
    }
    gTurn = llList2String(llParseString2List(gPos, [" "], []), 1);
    string v = llJsonGetValue(json, ["st"]);
    if (v != JSON_INVALID && v != "") gStatus = v;
    v = llJsonGetValue(json, ["scheme"]);
    if (v != JSON_INVALID && v != "") gScheme = v;
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
    show();
    showStatus();
}

// One event of a long poll (docs/http-api.md, compact view).
applyEvent(string ev) {
    string kind = llJsonGetValue(ev, ["kind"]);
    // Any change but a draw offer ends a choice the change may have outdated;
    // a move by the side not offering declines the offer.
    if (kind != "draw" && kind != "seat") unpick();
    if (kind == "move") {
        if (llJsonGetValue(ev, ["by"]) != gDraw) gDraw = "";
        applyBoard(ev);
        laser(llJsonGetValue(ev, ["laser"]));
        render(KR_HITS, llJsonGetValue(ev, ["rm"]));
    } else if (kind == "draw") {
        gDraw = llJsonGetValue(ev, ["by"]);
        showStatus();
    } else if (kind == "setup" || kind == "start") {
        gDraw = "";
        if (kind == "start") gStatus = "P";
        else gStatus = "W";
        applyBoard(ev);
        laser("");
    } else if (kind == "over") {
        gStatus = "F";
        gDraw = "";
        applyBoard(ev);
    } else if (kind == "seat") {
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
        gStatus = "W";
        gDraw = "";
        save();
        showStatus();
        laser("");
    } else if (kind == "settings") {
        gQuiet = llJsonGetValue(ev, ["quiet"]) == JSON_TRUE;
        gScheme = llJsonGetValue(ev, ["scheme"]);
        save();
        // The board's longest edge (x) follows the owner's Scale setting;
        // the render script scales it (and tells a refusal back).
        render(KR_LOOK, gScheme + " " + llJsonGetValue(ev, ["scale"]));
    } else if (kind == "deleted") {
        forget(NULL_KEY, "The board's session was closed on the server.");
        return;
    }
    announce(llJsonGetValue(ev, ["ann"]), kind == "over");
}

// ---- Answers ---------------------------------------------------------------------

// A compact session's clocks: its "clk", or none.
sessionClocks(string body) {
    string clk = llJsonGetValue(body, ["clk"]);
    if (clk == JSON_INVALID) clk = "";
    readClocks(clk);
}

onPoll(integer code, string body) {
    if (code == 200) {
        gPollFails = 0;
        integer n = 0;
        string ev = llJsonGetValue(body, ["events", n]);
        while (ev != JSON_INVALID) {
            integer v = (integer)llJsonGetValue(ev, ["v"]);
            // The clocks as they stood after each event.
            string clk = llJsonGetValue(ev, ["clk"]);
            if (clk != JSON_INVALID) readClocks(clk);
            if (v > gVersion) {   // skip what an answer already showed
                applyEvent(ev);
                if (gId == "") return;
                gVersion = v;
            }
            ev = llJsonGetValue(body, ["events", ++n]);
        }
        integer last = (integer)llJsonGetValue(body, ["v"]);
        if (last > gVersion) gVersion = last;
        showStatus();
        // An answer in under a second with nothing new: pause, don't spin.
        if (n == 0 && llGetTime() - gPollSent < 1.0) {
            gPollDue = llGetTime() + 2.0;
            schedule();
        } else {
            poll();
        }
    } else if (code == 404) {
        forget(NULL_KEY, "The Khet server no longer knows this board: "
            + llJsonGetValue(body, ["error", "message"]));
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
        backOff();
        return;
    }
    gActDue = -1.0;
    string error = llJsonGetValue(body, ["error", "message"]);
    if (code != 200) {
        if (kind == K_MOVE && llJsonGetValue(body, ["error", "code"]) == "ABORTED") {
            // The board changed since the move was chosen: look again.
            gRetryMove = gActArg;
            gRetryPos = gPos;
            refresh(who);
        } else if (code == 404 && kind != K_CREATE) {
            forget(who, "The Khet server no longer knows this board: " + error);
        } else {
            tell(who, "Khet: " + error);
            keepPolling();
        }
        return;
    }
    if (kind == K_CREATE) {
        // The owner token and the new board, as GetSession's compact view.
        gId = llJsonGetValue(body, ["id"]);
        gOwnerToken = llJsonGetValue(body, ["owner"]);
        gVersion = (integer)llJsonGetValue(body, ["v"]);
        save();
        sessionClocks(body);
        applyBoard(body);
        laser(llJsonGetValue(body, ["laser"]));
    } else if (kind == K_JOIN) {
        gPlayers += [who, gActArg, llJsonGetValue(body, ["token"])];
        save();
        tell(who, "You play " + sideName(gActArg) + ".");
    } else if (kind == K_LEAVE) {
        dropSide(gActArg);
    } else if (kind == K_REFRESH) {
        gVersion = (integer)llJsonGetValue(body, ["v"]);
        sessionClocks(body);
        applyBoard(body);
        laser(llJsonGetValue(body, ["laser"]));
        string move = gRetryMove;
        gRetryMove = "";
        if (move != "") {
            if (gPos == gRetryPos && seatOf(who) == gTurn) sendMove(who, move);
            else tell(who, "The board changed; choose your move again.");
        }
        poll();
    } else if (kind == K_MOVES) {
        list moves = llParseString2List(llJsonGetValue(body, ["moves"]), [" "], []);
        if (moves == []) tell(who, "That piece cannot move now.");
        else pick(who, gActArg, moves);
    } else if (kind == K_MOVE) {
        gVersion = (integer)llJsonGetValue(body, ["v"]);
        if (gDraw != gTurn) gDraw = "";  // the mover's opponent declines
        sessionClocks(body);  // the move's answer has the clocks after it
        applyBoard(body);
        laser(llJsonGetValue(body, ["laser"]));
        render(KR_HITS, llJsonGetValue(body, ["rm"]));
        announce(llJsonGetValue(body, ["ann"]), llJsonGetValue(body, ["res"]) != "");
    }
    keepPolling();
}

// ---- Actions ---------------------------------------------------------------------

sendMove(key who, string move) {
    act(K_MOVE, who, "POST", route("/v1/sessions/{id}:move?view=compact", []),
        llList2Json(JSON_OBJECT, ["move", llList2Json(JSON_OBJECT,
            ["notation", move]), "expectedVersion", gVersion,
            "requestId", (string)llGenerateKey()]), tokenOf(who), move);
}

// A new game from a setup (`field` "setupId") or a preset ("preset"): a new
// board if there is none yet.
chooseSetup(key who, string field, string value) {
    if (gId == "")
        act(K_CREATE, who, "POST", route("/v1/sessions?view=compact", []),
            llList2Json(JSON_OBJECT, ["name", llGetObjectName(), field, value]),
            "", value);
    else
        act(K_SETUP, who, "POST", route("/v1/sessions/{id}:chooseSetup?view=compact", []),
            llList2Json(JSON_OBJECT, [field, value]), gOwnerToken, value);
}

settings(key who, string update) {
    act(K_SETTINGS, who, "POST",
        route("/v1/sessions/{id}:updateSettings?view=compact", []),
        "{\"settings\":" + update + "}", gOwnerToken, "");
}

// A touch on the board face, a piece prim or a marker: the square, or "".
string touchedSquare() {
    integer link = llDetectedLinkNumber(0);
    if (link > 1) {
        string name = llGetLinkName(link);
        if (name != "piece" && name != "mark") return "";
        return posSquare(llList2Vector(
            llGetLinkPrimitiveParams(link, [PRIM_POS_LOCAL]), 0));
    }
    if (llDetectedTouchFace(0) != BOARD_FACE) return "";
    return stSquare(llDetectedTouchST(0));
}

// A touch by `who` on `sq` (may be ""): the target of the piece they chose
// plays that move (a dialog when two moves end there: a stack moved whole
// or its top alone, a turn either way); one of their pieces on their turn
// is chosen; anything else opens the menu.
touchSquare(key who, string sq) {
    string side = seatOf(who);
    if (gPick != "" && who == gPickWho) {
        list moves = movesTo(sq);
        unpick();
        if (llGetListLength(moves) == 1) {
            sendMove(who, llList2String(moves, 0));
            return;
        }
        if (moves != []) {
            menu(who, "Which move?", moves);
            return;
        }
    }
    if (canPick(side, sq)) {
        if (side != gTurn) {
            tell(who, "It is " + sideName(gTurn) + "'s turn.");
            return;
        }
        act(K_MOVES, who, "GET", route(
            "/v1/sessions/{id}/legalMoves?square={square}&view=compact",
            ["{square}", sq]), "", "", sq);
        return;
    }
    list buttons = ["Play"];
    if (isOwner(who)) buttons = ["Setup", "Play", "Settings"];
    menu(who, "Khet", buttons);
}

onButton(key who, string b) {
    integer owner = isOwner(who);
    string side = seatOf(who);
    integer i;
    if (b == "Setup" && owner) {
        menu(who, "Choose the rules (Club: 15 min + 10 s a move)",
             ["Khet 2.0", "Khet 1.0", "Club 15+10"]);
    } else if (b == "Club 15+10" && owner) {
        chooseSetup(who, "preset", "club");
    } else if (b == "Khet 2.0" && owner) {
        menu(who, "Khet 2.0 setups (b: Eye of Horus)", SETUPS_2);
    } else if (b == "Khet 1.0" && owner) {
        menu(who, "Khet 1.0 setups (b: Eye of Horus)", SETUPS_1);
    } else if (llListFindList(SETUPS_2 + SETUPS_1, [b]) >= 0 && owner) {
        chooseSetup(who, "setupId", b);
    } else if (b == "Play") {
        list buttons = ["Silver", "Red", "Leave", "Computer"];
        if (side != "" && gStatus == "P")
            buttons += ["Resign", "Offer draw", "Claim draw", "Type move"];
        if (side != "" && gStatus == "P" && gDraw != "" && gDraw != side)
            buttons += ["Accept draw"];
        menu(who, "Take a seat, leave it, seat the computer, or end the game",
             buttons);
    } else if (b == "Resign" && side != "") {
        menu(who, "Resign the game as " + sideName(side) + "?", ["Yes, resign", "No"]);
    } else if (b == "No") {
        return;
    } else if (b == "Yes, resign" && side != "") {
        act(K_GAME, who, "POST", route("/v1/sessions/{id}:resign?view=compact", []),
            "{}", tokenOf(who), "");
    } else if (b == "Offer draw" && side != "") {
        act(K_GAME, who, "POST", route("/v1/sessions/{id}:offerDraw?view=compact", []),
            "{}", tokenOf(who), "");
    } else if (b == "Accept draw" && side != "") {
        act(K_GAME, who, "POST", route("/v1/sessions/{id}:acceptDraw?view=compact", []),
            "{}", tokenOf(who), "");
    } else if (b == "Claim draw" && side != "") {
        act(K_GAME, who, "POST",
            route("/v1/sessions/{id}:claimRepetitionDraw?view=compact", []),
            "{}", tokenOf(who), "");
    } else if ((b == "Silver" || b == "Red") && gId != "") {
        string want = llToLower(llGetSubString(b, 0, 0));
        act(K_JOIN, who, "POST", route("/v1/sessions/{id}:join?view=compact", []),
            llList2Json(JSON_OBJECT, ["color", llToUpper(b),
                "playerName", llKey2Name(who)]), "", want);
    } else if (b == "Leave") {
        if (side == "") tell(who, "You have no seat at this board.");
        else act(K_LEAVE, who, "POST", route("/v1/sessions/{id}:leave?view=compact", []),
                 "{}", tokenOf(who), side);
    } else if (b == "Computer") {
        menu(who, "The computer's level: 1 A'NOOB'IS ... 5 KHET GRANDMASTER",
             ["Level 1", "Level 2", "Level 3", "Level 4", "Level 5"]);
    } else if (llGetSubString(b, 0, 5) == "Level " && gId != "") {
        string token = tokenOf(who);
        if (token == "" && owner) token = gOwnerToken;
        act(K_COMPUTER, who, "POST",
            route("/v1/sessions/{id}:seatComputer?view=compact", []),
            "{\"level\":" + llGetSubString(b, 6, 6) + "}", token, "");
    } else if (b == "Settings" && owner) {
        menu(who, "Board settings", ["Timeout", "Quiet", "Scale", "Colours", "Reset"]);
    } else if (b == "Timeout" && owner) {
        menu(who, "Reset a game after no move for...", llList2ListStrided(TIMEOUTS, 0, -1, 2));
    } else if ((i = llListFindList(TIMEOUTS, [b])) >= 0 && owner) {
        integer seconds = llList2Integer(TIMEOUTS, i + 1);
        if (seconds == 0) settings(who, "{\"timeoutEnabled\":false}");
        else settings(who, "{\"timeoutEnabled\":true,\"timeoutSeconds\":" +
                      (string)seconds + "}");
    } else if (b == "Quiet" && owner) {
        menu(who, "Quiet: only results and errors in chat", ["Quiet on", "Quiet off"]);
    } else if ((b == "Quiet on" || b == "Quiet off") && owner) {
        settings(who, "{\"quiet\":" + llList2String(["false", "true"], b == "Quiet on")
                 + "}");
    } else if (b == "Scale" && owner) {
        menu(who, "The board's longest edge", SCALES);
    } else if (llListFindList(SCALES, [b]) >= 0 && owner) {
        settings(who, "{\"scaleMeters\":" + (string)((integer)b) + "}");
    } else if (b == "Colours" && owner) {
        menu(who, "Colour scheme", SCHEMES);
    } else if (llListFindList(SCHEMES, [b]) >= 0 && owner) {
        settings(who, "{\"colorScheme\":\"" + b + "\"}");
    } else if (b == "Reset" && owner && gId != "") {
        act(K_RESET, who, "POST", route("/v1/sessions/{id}:reset?view=compact", []), "{}",
            gOwnerToken, "");
    } else if (b == "Type move" && side != "") {
        llTextBox(who, "Type a move, e.g. e4-e5, f4=g3 or j1L", gChannel);
    } else if (side != "" && gId != "") {
        sendMove(who, llStringTrim(b, STRING_TRIM));  // a move button or typed
    }
}

readConfig(string line) {
    list kv = llParseString2List(line, ["="], []);
    string k = llStringTrim(llList2String(kv, 0), STRING_TRIM);
    string v = llStringTrim(llList2String(kv, 1), STRING_TRIM);
    if (k == "server") gServer = v;
    else if (k == "debug") gDebug = (integer)v;
}

// The configuration is read: the board script's state comes back from
// khet_keep.lsl (restore()), or after KEEPER seconds without an answer
// the board starts afresh.
start() {
    if (llGetSubString(gServer, -1, -1) == "/") gServer = llGetSubString(gServer, 0, -2);
    if (gServer == "") {
        llOwnerSay("Put the Khet server's URL in the description or a notecard "
                   + "\"khet config\" (server=https://...).");
        return;
    }
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
    integer i;
    for (i = 5; i + 2 < llGetListLength(f); i += 3)
        gPlayers += [llList2Key(f, i), llList2String(f, i + 1),
                     llList2String(f, i + 2)];
    if (gId == "") forget(NULL_KEY, "Khet board ready: touch it and choose Setup.");
    else refresh(NULL_KEY);
}

// Rezzed again or the region restarted: the script's state is as it was,
// but the requests in flight are gone for good, and the region counts its
// request budget afresh. The board is read again from the server and the
// long poll starts over from it.
resume() {
    gActKey = NULL_KEY;
    gActDue = -1.0;
    gPollKey = NULL_KEY;
    gPollDue = -1.0;
    gSent = [];
    if (gId != "") refresh(NULL_KEY);
}

default {
    state_entry() {
        gChannel = -1000000 - (integer)llFrand(1000000000.0);
        llListen(gChannel, "", NULL_KEY, "");
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
    // after a reset across which the keeper's copy carries the game.
    changed(integer change) {
        if (change & (CHANGED_OWNER | CHANGED_INVENTORY | CHANGED_LINK))
            llResetScript();
        else if (change & CHANGED_REGION_START) resume();
    }

    // khet_keep.lsl's copy, asked for by start(); or, when not waiting for
    // one, the keeper has just started empty and gets the state again.
    link_message(integer sender, integer num, string text, key id) {
        if (num == KB_KEPT) {
            if (gRestoreDue >= 0.0) restore(text);
            else if (gServer != "") save();
        } else {
            onRender(num, text);
        }
    }

    touch_start(integer n) {
        touchSquare(llDetectedKey(0), touchedSquare());
    }

    listen(integer channel, string name, key id, string message) {
        onButton(id, message);
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
        if (gClockDue >= 0.0 && now >= gClockDue) showStatus();
        if (gRestoreDue >= 0.0 && now >= gRestoreDue) {
            llOwnerSay("No khet_keep.lsl: a reset of this script loses the game.");
            restore("");
        }
        schedule();
    }
}
