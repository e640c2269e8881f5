// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// khet_words.lsl: everything the Khet board says in its own words, in the
// session's language (English, German, French or Dutch): what it tells
// people, its dialogs and text boxes and their listen, and its hover text
// (the players, the turn or the result, offers, the clocks counted down
// here, the last moves). It sends no HTTP request and keeps no game: it
// lies in the root prim next to khet_board.lsl, which names in link
// messages what to say and show, and gets back each chosen button as a
// language-neutral id (clients/lsl/README.md, "The scripts"). The server's
// own announcements ("ann") come already in the session's language and
// are said by the board script.
//
// The protocol. Every message is llMessageLinked(LINK_THIS, number, text,
// key); a script hears its own messages too, so each acts only on the
// numbers sent to it. Fields of a text are separated by "\n".
//   khet_board.lsl -> khet_words.lsl
//     7501 say     "<word id>\n<arg>...", key the person (NULL_KEY: the
//                  owner): tells them that word filled with the args
//     7502 menu    "<word id> <arg>...\n<button>...", key the person: a
//                  dialog whose text is the word filled with the args (no
//                  spaces in them); each button is "<id>" or "<id>
//                  <value>", labelled as label() says
//     7503 status  "<st>\n<turn>\n<res>\n<why>\n<silver>\n<red>\n<draw>\n
//                  <takeback>\n<clk>\n<last moves>", as the compact view
//                  names them (docs/http-api.md); st "" for no board: the
//                  hover text
//     7504 lang    "en", "de", "fr" or "nl": the language of the words
//     7106 debug   "1": after each shot (7103 laser, not ""), tell the
//                  owner this script's memory (both meant for
//                  khet_render.lsl; heard here too)
//   khet_words.lsl -> khet_board.lsl
//     7601 pressed a chosen button as the board or submenu() gave it
//                  ("seat s", "use classic-2", "size 5"), or "typed
//                  <text>" from the move text box; key the person
//     7602 ready   "": this script (re)started; the board sends lang and
//                  status again
// A button that opens a submenu (Setup's and Settings' choices, the
// computer's levels, Resign's confirmation, the move text box) is
// answered here: only the final choice goes to the board, which checks
// that the person may make it; "no" and "cancel" just close the dialog.
// Every script in the prim hears every link message, the board's pushed
// deliveries (2 KB) too: this script splits only its own.
//
// Words: texts() gives each id's text in the four languages,
// "English|Deutsch|Français|Nederlands", or one text for all of them. In a
// text "{1}" is the first argument as given, "{W1}" the word whose id it
// is (a side "s" or "r", a clock, a preset, a language; itself if none),
// "{D1}" a decimal number written with the language's decimal mark. The
// terms follow service/i18n/README.md; clients/lsl/test/words_test.py
// checks the words.

integer KW_SAY = 7501;
integer KW_MENU = 7502;
integer KW_STATUS = 7503;
integer KW_LANG = 7504;
integer KB_PRESSED = 7601;
integer KB_WORDS = 7602;
integer KR_LASER = 7103;     // the render script's, for debug=1's memory figure
integer KR_DEBUG = 7106;

integer gLang;             // the language: 0 en, 1 de, 2 fr, 3 nl
integer gChannel;          // the dialogs' channel
list    gOpen;             // [person, buttons] for each open dialog, the
                           // buttons "\n"-joined ("typed" for the text
                           // box); at most 8
list    gStatus;           // the fields of the last status message
float   gAt;               // llGetTime() when its clocks' reading came
integer gDebug;            // debug=1: the owner hears the memory after a shot

// The text of the word `id` in every language ("English|Deutsch|
// Français|Nederlands", or one text for all), or "" for no such word.
// Written as code rather than a global list, so the texts are held once.
string texts(string id) {
    // sides
    if (id == "s") return "Silver|Silber|Argent|Zilver";
    if (id == "r") return "Red|Rot|Rouge|Rood";
    // told to people
    if (id == "busy") return "The board is busy; try again in a moment.|Das Brett ist beschäftigt; versuche es gleich noch einmal.|Le plateau est occupé ; réessayez dans un instant.|Het bord is bezig; probeer het zo opnieuw.";
    if (id == "down") return "The Khet server does not answer; try again later.|Der Khet-Server antwortet nicht; versuche es später noch einmal.|Le serveur Khet ne répond pas ; réessayez plus tard.|De Khet-server antwoordt niet; probeer het later opnieuw.";
    if (id == "retrying") return "The Khet server does not answer; the board keeps trying.|Der Khet-Server antwortet nicht; das Brett versucht es weiter.|Le serveur Khet ne répond pas ; le plateau réessaie.|De Khet-server antwoordt niet; het bord blijft het proberen.";
    if (id == "youplay") return "You play {W1}.|Du spielst {W1}.|Vous jouez côté {W1}.|Je speelt met {W1}.";
    if (id == "noseat") return "You have no seat at this board.|Du hast keinen Platz an diesem Brett.|Vous n'avez pas de place à ce plateau.|Je hebt geen plaats aan dit bord.";
    if (id == "turn") return "It is {W1}'s turn.|{W1} ist am Zug.|C'est au tour de {W1}.|{W1} is aan zet.";
    if (id == "stuck") return "That piece cannot move now.|Diese Figur kann jetzt nicht ziehen.|Cette pièce ne peut pas bouger maintenant.|Dit stuk kan nu niet zetten.";
    if (id == "touch") return "Touch a lit square to move {1} ({2}), or the piece itself to turn it.|Berühre ein leuchtendes Feld, um {1} zu ziehen ({2}), oder die Figur selbst, um sie zu drehen.|Touchez une case éclairée pour jouer {1} ({2}), ou la pièce elle-même pour la tourner.|Raak een verlicht veld aan om {1} te zetten ({2}), of het stuk zelf om het te draaien.";
    if (id == "changed") return "The board changed; choose your move again.|Das Brett hat sich geändert; wähle deinen Zug neu.|Le plateau a changé ; choisissez à nouveau votre coup.|Het bord is veranderd; kies je zet opnieuw.";
    if (id == "gone") return "The Khet server no longer knows this board: {1}|Der Khet-Server kennt dieses Brett nicht mehr: {1}|Le serveur Khet ne connaît plus ce plateau : {1}|De Khet-server kent dit bord niet meer: {1}";
    if (id == "closed") return "The board's session was closed on the server.|Die Sitzung des Bretts wurde auf dem Server geschlossen.|La session du plateau a été fermée sur le serveur.|De sessie van het bord is op de server gesloten.";
    if (id == "ready") return "Khet board ready: touch it and choose Setup.|Khet-Brett bereit: berühre es und wähle Aufstellung.|Plateau Khet prêt : touchez-le et choisissez Configuration.|Khet-bord klaar: raak het aan en kies Opstelling.";
    if (id == "nourl") return "Put the Khet server's URL in the description or in a notecard \"khet config\" (server=https://...).|Trage die URL des Khet-Servers in die Beschreibung oder in eine Notizkarte \"khet config\" ein (server=https://...).|Indiquez l'URL du serveur Khet dans la description ou dans une note \"khet config\" (server=https://...).|Zet de URL van de Khet-server in de beschrijving of in een notitiekaart \"khet config\" (server=https://...).";
    if (id == "nokeep") return "No khet_keep.lsl: a reset of khet_board.lsl loses the game.|Kein khet_keep.lsl: ein Zurücksetzen von khet_board.lsl verliert das Spiel.|Pas de khet_keep.lsl : réinitialiser khet_board.lsl perd la partie.|Geen khet_keep.lsl: khet_board.lsl resetten verliest het spel.";
    if (id == "noscale") return "The board cannot be scaled to {D1} m here; it stays {D2} m.|Das Brett kann hier nicht auf {D1} m skaliert werden; es bleibt {D2} m.|Le plateau ne peut pas passer à {D1} m ici ; il reste à {D2} m.|Het bord kan hier niet naar {D1} m geschaald worden; het blijft {D2} m.";
    if (id == "error") return "Khet: {1}";
    if (id == "hinted") return "Hint: {1}; its squares are lit.|Tipp: {1}; seine Felder leuchten.|Conseil : {1} ; ses cases sont éclairées.|Tip: {1}; de velden ervan zijn verlicht.";
    if (id == "current") return "This board's scripts ({1}) are current.|Die Skripte dieses Bretts ({1}) sind aktuell.|Les scripts de ce plateau ({1}) sont à jour.|De scripts van dit bord ({1}) zijn actueel.";
    if (id == "newer") return "Newer board scripts ({1}) are available from {2}; this board has {3}.|Neuere Brett-Skripte ({1}) gibt es unter {2}; dieses Brett hat {3}.|Scripts plus récents ({1}) sur {2} ; ce plateau a {3}.|Nieuwere bordscripts ({1}) staan op {2}; dit bord heeft {3}.";
    if (id == "nourlin") return "No URL from the region: the board polls the Khet server.|Keine URL von der Region: das Brett fragt den Khet-Server ab.|Pas d'URL de la région : le plateau interroge le serveur Khet.|Geen URL van de regio: het bord vraagt de Khet-server zelf.";
    if (id == "pushhost") return "khetd does not accept this region's URL: ask its operator to add the simulator's host to --inworld_callback_hosts. The board polls.|khetd nimmt die URL dieser Region nicht an: sein Betreiber muss den Host des Simulators in --inworld_callback_hosts aufnehmen. Das Brett fragt selbst.|khetd refuse l'URL de cette région : son administrateur doit ajouter l'hôte du simulateur à --inworld_callback_hosts. Le plateau interroge.|khetd weigert de URL van deze regio: de beheerder moet de host van de simulator aan --inworld_callback_hosts toevoegen. Het bord vraagt zelf.";
    if (id == "nopush") return "No pushed updates from the Khet server ({1}); the board polls.|Keine Neuigkeiten vom Khet-Server zugestellt ({1}); das Brett fragt selbst.|Pas de nouveautés envoyées par le serveur Khet ({1}) ; le plateau interroge.|Geen updates van de Khet-server ({1}); het bord vraagt zelf.";
    if (id == "clockset") return "The setups chosen next play with: {W1}.|Die nächsten Aufstellungen spielen mit: {W1}.|Les prochaines configurations se jouent avec : {W1}.|De volgende opstellingen spelen met: {W1}.";
    // the hover text
    if (id == "noboard") return "Khet: touch Setup to start a board|Khet: berühre Aufstellung, um ein Brett zu beginnen|Khet : touchez Configuration pour commencer un plateau|Khet: raak Opstelling aan om een bord te beginnen";
    if (id == "line") return "{W1}: {2}|{W1}: {2}|{W1} : {2}|{W1}: {2}";
    if (id == "waiting") return "Waiting for players (touch Play)|Warte auf Spieler (berühre Spielen)|En attente de joueurs (touchez Jouer)|Wacht op spelers (raak Spelen aan)";
    if (id == "tomove") return "{W1} to move|{W1} ist am Zug|Au tour de {W1}|{W1} is aan zet";
    if (id == "over") return "Game over|Spiel vorbei|Partie terminée|Spel voorbij";
    if (id == "won") return "Game over: {W1} wins|Spiel vorbei: {W1} gewinnt|Partie terminée : {W1} gagne|Spel voorbij: {W1} wint";
    if (id == "drawn") return "Game over: a draw|Spiel vorbei: Unentschieden|Partie terminée : partie nulle|Spel voorbij: gelijkspel";
    if (id == "flag") return " ({W1}'s time ran out)| (die Zeit von {W1} ist abgelaufen)| (temps écoulé pour {W1})| (de tijd van {W1} is op)";
    if (id == "offers") return "{W1} offers a draw|{W1} bietet ein Unentschieden an|{W1} propose la partie nulle|{W1} biedt gelijkspel aan";
    if (id == "asks") return "{W1} asks to take back|{W1} möchte zurücknehmen|{W1} demande une reprise|{W1} vraagt een terugname";
    if (id == "last") return "Last: {1}|Zuletzt: {1}|Derniers coups : {1}|Laatste zetten: {1}";
    // dialog texts
    if (id == "main") return "Khet";
    if (id == "setupq") return "Choose the rules|Wähle die Regeln|Choisissez les règles|Kies de regels";
    if (id == "setups") return "Khet {1} setups (b: with the Eye of Horus)|Aufstellungen für Khet {1} (b: mit dem Auge des Horus)|Configurations Khet {1} (b : avec l'Œil d'Horus)|Opstellingen voor Khet {1} (b: met het Oog van Horus)";
    if (id == "presetq") return "Casual: no clocks, hints and takebacks. Club: 15 min + 10 s a move, no hints. Tournament 2009: four facings, a draw after 222 moves, no hints or takebacks.|Freies Spiel: ohne Uhr, mit Tipps und Zurücknehmen. Verein: 15 min + 10 s je Zug, ohne Tipps. Turnier 2009: vier Blickrichtungen, Unentschieden nach 222 Zügen, ohne Tipps und Zurücknehmen.|Partie libre : sans pendule, avec conseils et reprises. Club : 15 min + 10 s par coup, sans conseils. Tournoi 2009 : quatre orientations, partie nulle après 222 coups, sans conseils ni reprises.|Vrij spel: zonder klok, met tips en terugnemen. Club: 15 min + 10 s per zet, zonder tips. Toernooi 2009: vier richtingen, gelijkspel na 222 zetten, zonder tips of terugnemen.";
    if (id == "clockq") return "A clock for the setups chosen next (a preset keeps its own)|Eine Uhr für die nächsten Aufstellungen (eine Vorgabe behält ihre eigene)|Une pendule pour les prochaines configurations (un préréglage garde la sienne)|Een klok voor de volgende opstellingen (een voorinstelling houdt de eigen klok)";
    if (id == "playq") return "Take a seat, leave it, seat the computer, or end the game|Nimm Platz, steh auf, setze den Computer ein oder beende das Spiel|Prenez place, quittez-la, installez l'ordinateur ou terminez la partie|Neem plaats, sta op, zet de computer in of beëindig het spel";
    if (id == "resignq") return "Resign this game?|Dieses Spiel aufgeben?|Abandonner cette partie ?|Dit spel opgeven?";
    if (id == "levelq") return "The computer's level: 1 A'NOOB'IS ... 5 KHET GRANDMASTER|Stufe des Computers: 1 A'NOOB'IS ... 5 KHET GRANDMASTER|Niveau de l'ordinateur : 1 A'NOOB'IS ... 5 KHET GRANDMASTER|Niveau van de computer: 1 A'NOOB'IS ... 5 KHET GRANDMASTER";
    if (id == "settingsq") return "Board settings|Einstellungen des Bretts|Réglages du plateau|Instellingen van het bord";
    if (id == "timeoutq") return "Reset a game after no move for...|Ein Spiel ohne Zug zurücksetzen nach...|Réinitialiser une partie sans coup après...|Een spel zonder zet opnieuw beginnen na...";
    if (id == "quietq") return "Quiet: only results and errors in chat|Leise: im Chat nur Ergebnisse und Fehler|Discret : seulement les résultats et les erreurs dans le chat|Stil: alleen uitslagen en fouten in de chat";
    if (id == "scaleq") return "The board's longest edge|Die längste Kante des Bretts|Le plus grand côté du plateau|De langste rand van het bord";
    if (id == "coloursq") return "Colour scheme|Farbschema|Jeu de couleurs|Kleurenschema";
    if (id == "languageq") return "The board's language|Die Sprache des Bretts|La langue du plateau|De taal van het bord";
    if (id == "hintsq") return "Hints: the player to move may ask the computer for a move|Tipps: wer am Zug ist, darf den Computer nach einem Zug fragen|Conseils : le joueur au trait peut demander un coup à l'ordinateur|Tips: wie aan zet is, mag de computer om een zet vragen";
    if (id == "whichq") return "Which move?|Welcher Zug?|Quel coup ?|Welke zet?";
    if (id == "typeq") return "Type a move, e.g. e4-e5, f4=g3 or j1L|Gib einen Zug ein, z. B. e4-e5, f4=g3 oder j1L|Saisissez un coup, p. ex. e4-e5, f4=g3 ou j1L|Typ een zet, bv. e4-e5, f4=g3 of j1L";
    if (id == "resetq") return "A game is in progress. Reset it, then choose the setup?|Ein Spiel läuft. Zurücksetzen und dann die Aufstellung wählen?|Une partie est en cours. La réinitialiser, puis choisir la configuration ?|Er loopt een spel. Opnieuw beginnen en dan de opstelling kiezen?";
    if (id == "takebackq") return "{W1} asks for a takeback. Accept?|{W1} bittet um eine Zugrücknahme. Annehmen?|{W1} demande une reprise. Accepter ?|{W1} vraagt een terugname. Accepteren?";
    // buttons
    if (id == "setup") return "Setup|Aufstellung|Configuration|Opstelling";
    if (id == "play") return "Play|Spielen|Jouer|Spelen";
    if (id == "settings") return "Settings|Einstellungen|Réglages|Instellingen";
    if (id == "khet2") return "Khet 2.0";
    if (id == "khet1") return "Khet 1.0";
    if (id == "presets") return "Presets|Vorgaben|Préréglages|Voorinstellingen";
    if (id == "clocks") return "Clock|Uhr|Pendule|Klok";
    if (id == "preset") return "{W1}";
    if (id == "casual") return "Casual|Freies Spiel|Partie libre|Vrij spel";
    if (id == "club") return "Club 15+10|Verein 15+10|Club 15+10|Club 15+10";
    if (id == "tournament-2009") return "Tournament 2009|Turnier 2009|Tournoi 2009|Toernooi 2009";
    if (id == "clock") return "{W1}";
    if (id == "none") return "No clock|Ohne Uhr|Sans pendule|Geen klok";
    if (id == "1d") return "A day a move|Ein Tag je Zug|Un jour par coup|Een dag per zet";
    if (id == "seat") return "{W1}";
    if (id == "leave") return "Leave|Aufstehen|Quitter|Opstaan";
    if (id == "computer") return "Computer|Computer|Ordinateur|Computer";
    if (id == "level") return "Level {1}|Stufe {1}|Niveau {1}|Niveau {1}";
    if (id == "resign") return "Resign|Aufgeben|Abandonner|Opgeven";
    if (id == "yesresign") return "Yes, resign|Ja, aufgeben|Oui, abandonner|Ja, opgeven";
    if (id == "no") return "No|Nein|Non|Nee";
    if (id == "offer") return "Offer draw|Unentschieden anbieten|Proposer partie nulle|Gelijkspel aanbieden";
    if (id == "accept") return "Accept draw|Unentschieden annehmen|Accepter partie nulle|Gelijkspel aannemen";
    if (id == "claim") return "Claim draw|Unentschieden fordern|Réclamer partie nulle|Gelijkspel claimen";
    if (id == "type") return "Type move|Zug eingeben|Saisir un coup|Zet typen";
    if (id == "takeback") return "Take back|Zurücknehmen|Reprendre|Terugnemen";
    if (id == "answer") return "Takeback?|Zugrücknahme?|Reprise ?|Terugname?";
    if (id == "yes") return "Accept|Annehmen|Accepter|Accepteren";
    if (id == "decline") return "Decline|Ablehnen|Refuser|Weigeren";
    if (id == "hint") return "Hint|Tipp|Conseil|Tip";
    if (id == "timeout") return "Timeout|Zeitlimit|Inactivité|Time-out";
    if (id == "wait 0") return "Off|Aus|Désactivé|Uit";
    if (id == "wait 900") return "15 min";
    if (id == "wait 1800") return "30 min";
    if (id == "wait 3600") return "1 h";
    if (id == "wait 7200") return "2 h";
    if (id == "wait 21600") return "6 h";
    if (id == "quiet") return "Quiet|Leise|Discret|Stil";
    if (id == "quiet true") return "Quiet on|Leise an|Discret : oui|Stil aan";
    if (id == "quiet false") return "Quiet off|Leise aus|Discret : non|Stil uit";
    if (id == "scale") return "Scale|Maßstab|Échelle|Schaal";
    if (id == "size") return "{1} m";
    if (id == "colours") return "Colours|Farben|Couleurs|Kleuren";
    if (id == "language") return "Language|Sprache|Langue|Taal";
    if (id == "lang") return "{W1}";
    if (id == "en") return "English";
    if (id == "de") return "Deutsch";
    if (id == "fr") return "Français";
    if (id == "nl") return "Nederlands";
    if (id == "hints") return "Hints|Tipps|Conseils|Tips";
    if (id == "hints true") return "Hints on|Tipps an|Conseils : oui|Tips aan";
    if (id == "hints false") return "Hints off|Tipps aus|Conseils : non|Tips uit";
    if (id == "reset") return "Reset|Zurücksetzen|Réinitialiser|Opnieuw beginnen";
    if (id == "resetsetup") return "Reset then Setup|Neustart + Aufstellung|Réinit. + configuration|Opnieuw + opstelling";
    if (id == "cancel") return "Cancel|Abbrechen|Annuler|Annuleren";
    if (id == "update") return "Update|Aktualisieren|Mise à jour|Bijwerken";
    return "";
}

// The dialog a button opens here, "<word id> <arg>\n<button>..." as a
// menu message has it; "" for a button that goes to the board. No
// buttons: the move text box.
string submenu(string button) {
    if (button == "setup") return "setupq\nkhet2\nkhet1\npresets\nclocks";
    if (button == "khet2") return "setups 2.0\nuse classic-2\nuse imhotep-2\nuse dynasty-2\nuse classic-2b\nuse imhotep-2b\nuse dynasty-2b\nuse osiris\nuse isis";
    if (button == "khet1") return "setups 1.0\nuse classic-1\nuse imhotep-1\nuse dynasty-1\nuse classic-1b\nuse imhotep-1b\nuse dynasty-1b";
    if (button == "presets") return "presetq\npreset casual\npreset club\npreset tournament-2009";
    if (button == "clocks") return "clockq\nclock none\nclock 5+3\nclock 15+10\nclock 1d";
    if (button == "settings") return "settingsq\ntimeout\nquiet\nscale\ncolours\nlanguage\nhints\nreset\nupdate";
    if (button == "timeout") return "timeoutq\nwait 0\nwait 900\nwait 1800\nwait 3600\nwait 7200\nwait 21600";
    if (button == "quiet") return "quietq\nquiet true\nquiet false";
    if (button == "scale") return "scaleq\nsize 1\nsize 2\nsize 3\nsize 4\nsize 5\nsize 6\nsize 8\nsize 10\nsize 15\nsize 20\nsize 30";
    if (button == "colours") return "coloursq\nscheme classic\nscheme deflexion\nscheme nile\nscheme royal";
    if (button == "language") return "languageq\nlang en\nlang de\nlang fr\nlang nl";
    if (button == "hints") return "hintsq\nhints true\nhints false";
    if (button == "computer") return "levelq\nlevel 1\nlevel 2\nlevel 3\nlevel 4\nlevel 5";
    if (button == "resign") return "resignq\nyesresign\nno";
    if (button == "type") return "typeq";
    return "";
}

// The word `id` in the board's language; "" if there is no such word.
string word(string id) {
    list all = llParseStringKeepNulls(texts(id), ["|"], []);
    if (llGetListLength(all) == 1) return llList2String(all, 0);
    return llList2String(all, gLang);
}

string replace(string text, string from, string to) {
    return llDumpList2String(llParseStringKeepNulls(text, [from], []), to);
}

// `text` with its placeholders filled from `args` (the header says how).
string fill(string text, list args) {
    integer i;
    for (i = 0; i < llGetListLength(args); ++i) {
        string n = (string)(i + 1);
        string arg = llList2String(args, i);
        if (llSubStringIndex(text, "{W" + n + "}") >= 0) {
            string w = word(arg);
            if (w == "") w = arg;
            text = replace(text, "{W" + n + "}", w);
        }
        if (gLang) text = replace(text, "{D" + n + "}", replace(arg, ".", ","));
        else text = replace(text, "{D" + n + "}", arg);
        text = replace(text, "{" + n + "}", arg);
    }
    return text;
}

// A button's label: the word that is the whole button ("wait 900"), else
// for "<id> <value>" the word `id` filled with the value, else the value
// alone (a setup id, a move), else the id.
string label(string button) {
    string text = word(button);
    if (text != "") return text;
    integer space = llSubStringIndex(button, " ");
    if (space < 0) return button;
    string value = llGetSubString(button, space + 1, -1);
    text = word(llGetSubString(button, 0, space - 1));
    if (text != "") return fill(text, [value]);
    return value;
}

// A board deeded to a group is owned by the group itself.
integer deeded() {
    return llGetOwner() ==
        llList2Key(llGetObjectDetails(llGetKey(), [OBJECT_GROUP]), 0);
}

// NULL_KEY: the owner (nearby chat for a deeded board, which has no owner
// to hear llOwnerSay).
tell(key who, string text) {
    if (who != NULL_KEY) llRegionSayTo(who, 0, text);
    else if (deeded()) llWhisper(0, text);
    else llOwnerSay(text);
}

// Shows `who` a dialog as a menu message's `fields` say (a text box when
// there are no buttons) and notes its buttons for listen (not their
// labels, which listen makes again: a dialog answered after the language
// changed is not taken).
dialog(key who, list fields) {
    list head = llParseString2List(llList2String(fields, 0), [" "], []);
    string text = fill(word(llList2String(head, 0)), llDeleteSubList(head, 0, 0));
    list buttons = llDeleteSubList(fields, 0, 0);
    if (buttons == []) {
        buttons = ["typed"];
        llTextBox(who, text, gChannel);
    } else {
        llDialog(who, text, labels(buttons), gChannel);
    }
    integer at = llListFindList(gOpen, [who]);
    if (at >= 0) gOpen = llDeleteSubList(gOpen, at, at + 1);
    if (llGetListLength(gOpen) >= 16) gOpen = llDeleteSubList(gOpen, 0, 1);
    gOpen += [who, llDumpList2String(buttons, "\n")];
}

// The labels of `buttons`, as label() makes each.
list labels(list buttons) {
    list out = [];
    integer i;
    for (i = 0; i < llGetListLength(buttons); ++i)
        out += [label(llList2String(buttons, i))];
    return out;
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

// The hover text from the last status: the players, whose turn it is or
// the result, a standing draw offer or takeback request, the clocks
// ("Silver 4:47 · Red 5:00 ▸ Silver", the running one counted down here
// every second) and the last moves.
show() {
    string st = llList2String(gStatus, 0);
    llSetTimerEvent(0.0);
    if (st == "") {
        llSetText(word("noboard"), <1, 1, 1>, 1.0);
        return;
    }
    string res = llToLower(llList2String(gStatus, 2));
    string text = fill(word("line"), ["s", llList2String(gStatus, 4)]) + "\n"
        + fill(word("line"), ["r", llList2String(gStatus, 5)]) + "\n";
    if (st == "W") text += word("waiting");
    else if (st == "P") text += fill(word("tomove"), [llList2String(gStatus, 1)]);
    else if (res == "d") text += word("drawn");
    else if (res != "") text += fill(word("won"), [res]);
    else text += word("over");
    if (st == "F" && llList2String(gStatus, 3) == "time_forfeit")
        text += fill(word("flag"), [llList2String(["r", "s"], res == "r")]);
    if (st == "P" && llList2String(gStatus, 6) != "")
        text += "\n" + fill(word("offers"), [llList2String(gStatus, 6)]);
    if (st == "P" && llList2String(gStatus, 7) != "")
        text += "\n" + fill(word("asks"), [llList2String(gStatus, 7)]);
    list clk = llParseStringKeepNulls(llList2String(gStatus, 8), [" "], []);
    if (llGetListLength(clk) == 3) {
        float silver = llList2Float(clk, 0);
        float red = llList2Float(clk, 1);
        string running = llList2String(clk, 2);
        float gone = llGetTime() - gAt;
        if (running == "s") silver -= gone;
        if (running == "r") red -= gone;
        text += "\n" + word("s") + " " + clockText(silver) + " · "
            + word("r") + " " + clockText(red);
        if (running != "") {
            text += " ▸ " + word(running);
            // Again when the running clock shows its next second.
            float left = silver;
            if (running == "r") left = red;
            if (left > 0.0) llSetTimerEvent(left - llFloor(left) + 0.05);
        }
    }
    if (llList2String(gStatus, 9) != "")
        text += "\n" + fill(word("last"), [llList2String(gStatus, 9)]);
    llSetText(text, <1, 1, 1>, 1.0);
}

default {
    state_entry() {
        gChannel = -1000000 - (integer)llFrand(1000000000.0);
        llListen(gChannel, "", NULL_KEY, "");
        llMessageLinked(LINK_THIS, KB_WORDS, "", NULL_KEY);
    }

    // A message from khet_board.lsl (the protocol at the top).
    link_message(integer sender, integer num, string text, key id) {
        // (Split only a message meant for this script: the others, such as
        // a pushed delivery for the board, may be 2 KB long.)
        list fields;
        if (num >= KW_SAY && num <= KW_STATUS)
            fields = llParseStringKeepNulls(text, ["\n"], []);
        if (num == KW_SAY) {
            tell(id, fill(word(llList2String(fields, 0)), llDeleteSubList(fields, 0, 0)));
        } else if (num == KW_MENU) {
            dialog(id, fields);
        } else if (num == KW_STATUS) {
            // The clocks' moment is when their reading changed: the board
            // sends the same reading again after every poll that brought
            // no event, which must not stop the countdown.
            if (llList2String(fields, 8) != llList2String(gStatus, 8))
                gAt = llGetTime();
            gStatus = fields;
            show();
        } else if (num == KW_LANG) {
            gLang = llListFindList(["en", "de", "fr", "nl"], [text]);
            if (gLang < 0) gLang = 0;
            show();
        } else if (num == KR_DEBUG) {
            gDebug = (integer)text;
        } else if (num == KR_LASER && gDebug && text != "") {
            llOwnerSay("words memory used " + (string)llGetUsedMemory());
        }
    }

    // A button of a dialog this script showed `id` (a text box's text as
    // "typed <text>"): its submenu, or the board hears it.
    listen(integer channel, string name, key id, string message) {
        integer at = llListFindList(gOpen, [id]);
        if (at < 0) return;
        list buttons = llParseString2List(llList2String(gOpen, at + 1), ["\n"], []);
        gOpen = llDeleteSubList(gOpen, at, at + 1);
        string button = "typed " + llStringTrim(message, STRING_TRIM);
        if (llList2String(buttons, 0) != "typed") {
            integer i = llListFindList(labels(buttons), [message]);
            if (i < 0) return;
            button = llList2String(buttons, i);
        }
        string menu = submenu(button);
        if (menu != "") dialog(id, llParseStringKeepNulls(menu, ["\n"], []));
        else if (button != "no" && button != "cancel")
            llMessageLinked(LINK_THIS, KB_PRESSED, button, id);
    }

    timer() {
        show();  // the running clock's next second
    }
}
