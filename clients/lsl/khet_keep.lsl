// khet_keep.lsl: keeps a copy of what khet_board.lsl must not lose (its
// session id, the owner token, the seats and their players' tokens, the
// owner they belong to), so that a reset of either script alone loses
// nothing. It lies in the board's root prim next to khet_board.lsl and does
// nothing else; clients/lsl/README.md ("Keeping the game") says when the
// copy is sent and asked back.
//
// The protocol: llMessageLinked(LINK_THIS, number, text, NULL_KEY) between
// the scripts of the root prim; each hears its own messages too, so each
// acts only on the numbers sent to it.
//   khet_board.lsl -> khet_keep.lsl
//     7301 save  the board's state as one text: this script keeps it
//                (replacing what it held; "" keeps nothing)
//     7302 ask   "": this script answers 7401 with what it keeps
//   khet_keep.lsl -> khet_board.lsl
//     7401 kept  what this script keeps ("" nothing): the answer to ask,
//                and sent unasked when this script (re)starts, with ""
//   khet_board.lsl -> khet_render.lsl, heard here too
//     7106 debug "1": after each shot (7103 laser, not "") this script
//                tells the owner its memory
// The copy lives only in this script's memory and in link messages within
// the prim: never in a description, a name or hover text.

integer KK_SAVE = 7301;
integer KK_ASK = 7302;
integer KB_KEPT = 7401;
integer KR_LASER = 7103;
integer KR_DEBUG = 7106;

string  gKept;             // the board's state, as it last sent it
integer gDebug;            // debug=1: the owner hears the memory after a shot

default {
    // Just started (added, reset, or a new owner): nothing kept yet; the
    // board script answers with save if it is running.
    state_entry() {
        llMessageLinked(LINK_THIS, KB_KEPT, "", NULL_KEY);
    }

    link_message(integer sender, integer num, string text, key id) {
        if (num == KK_SAVE) gKept = text;
        else if (num == KK_ASK) llMessageLinked(LINK_THIS, KB_KEPT, gKept, NULL_KEY);
        else if (num == KR_DEBUG) gDebug = (integer)text;
        else if (num == KR_LASER && gDebug && text != "")
            llOwnerSay("keep memory used " + (string)llGetUsedMemory());
    }

    // A new owner starts afresh: the old owner's tokens are not theirs.
    changed(integer change) {
        if (change & CHANGED_OWNER) gKept = "";
    }
}
