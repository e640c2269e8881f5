// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// khet_keep.lsl: keeps a copy of what khet_board.lsl must not lose (its
// session id, the owner token, the seats and their players' tokens, the
// owner they belong to), so that a reset of either script alone loses
// nothing; and is the board's door for pushed updates: it holds the URL
// the region gives the board (HTTP-in), checks the signature of each
// delivery khetd posts to it and hands the board the ones that are
// khetd's. It lies in the board's root prim next to khet_board.lsl, which
// sends every request (this script sends none); clients/lsl/README.md
// ("Keeping the game", "Pushed updates") says when the copy is sent and
// asked back, and how the URL is asked for and registered.
//
// The protocol: llMessageLinked(LINK_THIS, number, text, NULL_KEY) between
// the scripts of the root prim; each hears its own messages too, so each
// acts only on the numbers sent to it.
//   khet_board.lsl -> khet_keep.lsl
//     7301 save   the board's state as one text: this script keeps it
//                 (replacing what it held; "" keeps nothing)
//     7302 ask    "": this script answers 7401 with what it keeps
//     7303 url    "1": release the URL held (if any) and ask the region for
//                 a new one, https first (llRequestSecureURL), then http
//                 (llRequestURL); "": release it, ask for none
//     7304 secret the secret khetd gave when the board registered the URL
//                 (64 hex characters): deliveries signed with it are
//                 khetd's
//   khet_keep.lsl -> khet_board.lsl
//     7401 kept   what this script keeps ("" nothing): the answer to ask,
//                 and sent unasked when this script (re)starts, with ""
//     7402 url    the URL the region granted, or "" when it denied both
//     7403 pushed the body of a delivery whose signature is good:
//                 {"v":N,"events":[...],"more":bool}, or a compact session
//   khet_board.lsl -> khet_render.lsl, heard here too
//     7106 debug  "1": after each shot (7103 laser, not "") this script
//                 tells the owner its memory
// The copy and the secret live only in this script's memory and in link
// messages within the prim: never in a description, a name or hover text.
//
// A delivery is POSTed to "<url>?sig=<hex>" (or "&sig=" after a query the
// URL has): the body, at most 2048 bytes, signed as the lowercase hex
// llSHA256String(secret + body + secret). It is answered 200 "ok" at once
// when the signature is good, 403 when it is not (and dropped), 503 before
// the board has registered the URL (khetd tries again), 405 for any method
// but POST.

integer KK_SAVE = 7301;
integer KK_ASK = 7302;
integer KK_URL = 7303;
integer KK_SECRET = 7304;
integer KB_KEPT = 7401;
integer KB_URL = 7402;
integer KB_PUSHED = 7403;
integer KR_LASER = 7103;
integer KR_DEBUG = 7106;

string  gKept;             // the board's state, as it last sent it
integer gDebug;            // debug=1: the owner hears the memory after a shot
string  gUrl;              // the URL the region granted, or ""
key     gAsked = NULL_KEY; // the URL request waiting for its answer
integer gSecure;           // that request is for an https URL
string  gSecret;           // the registration's secret, or "" (none yet)

// Releases the URL held, if any; deliveries are refused until a new one is
// registered.
release() {
    if (gUrl != "") llReleaseURL(gUrl);
    gUrl = "";
    gSecret = "";
    gAsked = NULL_KEY;
}

default {
    // Just started (added, reset, or a new owner): nothing kept yet and no
    // URL; the board script answers with save, and asks for a URL.
    state_entry() {
        llMessageLinked(LINK_THIS, KB_KEPT, "", NULL_KEY);
    }

    link_message(integer sender, integer num, string text, key id) {
        if (num == KK_SAVE) gKept = text;
        else if (num == KK_ASK) llMessageLinked(LINK_THIS, KB_KEPT, gKept, NULL_KEY);
        else if (num == KK_URL) {
            release();
            if (text != "") {
                gSecure = TRUE;
                gAsked = llRequestSecureURL();
            }
        }
        else if (num == KK_SECRET) gSecret = text;
        else if (num == KR_DEBUG) gDebug = (integer)text;
        else if (num == KR_LASER && gDebug && text != "")
            llOwnerSay("keep memory used " + (string)llGetUsedMemory());
    }

    // The region's answer to a URL request (its id the request's), or a
    // request to the URL: khetd's delivery.
    http_request(key id, string method, string body) {
        if (method == URL_REQUEST_GRANTED || method == URL_REQUEST_DENIED) {
            if (id != gAsked) {
                // An answer to a request given up since: not kept.
                if (method == URL_REQUEST_GRANTED) llReleaseURL(body);
            } else if (method == URL_REQUEST_GRANTED) {
                gUrl = body;
                gAsked = NULL_KEY;
                llMessageLinked(LINK_THIS, KB_URL, gUrl, NULL_KEY);
            } else if (gSecure) {
                // No https here (OpenSimulator without its https listener):
                // http, which khetd may accept from this region's host.
                gSecure = FALSE;
                gAsked = llRequestURL();
            } else {
                gAsked = NULL_KEY;
                llMessageLinked(LINK_THIS, KB_URL, "", NULL_KEY);
            }
        } else if (method != "POST") {
            llHTTPResponse(id, 405, "POST only");
        } else if (gSecret == "") {
            llHTTPResponse(id, 503, "not registered yet");
        } else {
            string query = llGetHTTPHeader(id, "x-query-string");
            integer at = llSubStringIndex(query, "sig=");
            if (at < 0 || llGetSubString(query, at + 4, at + 67) !=
                    llSHA256String(gSecret + body + gSecret)) {
                llHTTPResponse(id, 403, "bad signature");
            } else {
                llHTTPResponse(id, 200, "ok");
                llMessageLinked(LINK_THIS, KB_PUSHED, body, NULL_KEY);
            }
        }
    }

    // A new owner starts afresh: the old owner's tokens are not theirs, nor
    // the URL registered with them.
    changed(integer change) {
        if (change & CHANGED_OWNER) {
            gKept = "";
            release();
        }
    }
}
