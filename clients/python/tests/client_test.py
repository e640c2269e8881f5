# Copyright 2026 The khet Authors
# SPDX-License-Identifier: Apache-2.0

"""khet_client against a real khetd (the KHETD environment variable names the
binary; the test starts it on a free loopback port)."""

import os
import subprocess
import tempfile
import unittest

import grpc

from khet_client import (Client, KhetError, LocalKhetd, game, move_top,
                         rotate, service, step)

# A whole Classic 2 game that Silver wins on its 9th move: Silver's laser runs
# up file j and along rank 8 into Red's Pharaoh on f8. (khet-engine play
# --setup classic-2 --seed 287.)
PHARAOH_HIT_GAME = [
    "j5-j6", "h4-i3", "f1-e2", "e5-d4", "f4-e3", "d4=c4", "c1-b2", "c4=c5",
    "j6L", "a5-a6", "j6-j7", "h8R", "j7-j8", "a6-a7", "d4-d5", "a4-b4",
    "h2-g3",
]


class ClientTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.server = LocalKhetd().start()
        cls.client = Client(cls.server.target, timeout=10)
        cls.client.wait_until_ready()

    @classmethod
    def tearDownClass(cls):
        cls.client.close()
        cls.server.stop()

    def new_game(self, setup_id="classic-2"):
        owner = self.client.create_session("test game", setup_id=setup_id)
        alice = self.client.join(owner.session_id, "alice")
        bob = self.client.join(owner.session_id, "bob")
        return owner, alice, bob

    def assert_khet_error(self, code, text, call, *args, **kwargs):
        with self.assertRaises(KhetError) as caught:
            call(*args, **kwargs)
        self.assertEqual(caught.exception.code, code, caught.exception)
        self.assertIn(text, caught.exception.message)
        return caught.exception

    def test_whole_game_to_a_pharaoh_hit_seen_by_a_watcher(self):
        owner, alice, bob = self.new_game()
        self.assertEqual((alice.color, bob.color), (game.SILVER, game.RED))
        events = self.client.watch(owner.session_id, after_version=0)
        self.addCleanup(events.cancel)
        version = self.client.session(owner.session_id).version
        for ply, notation in enumerate(PHARAOH_HIT_GAME):
            mover = alice if ply % 2 == 0 else bob
            played = mover.move(notation, expected_version=version)
            self.assertEqual(played.move.notation, notation)
            self.assertGreater(played.version, version)
            version = played.version
        self.assertEqual(played.result.outcome, game.SILVER_WINS)
        self.assertEqual(played.result.reason, game.PHARAOH_HIT)
        self.assertEqual(list(played.shot.hit_squares), ["f8"])
        self.assertEqual(played.removals[0].before.type, game.PHARAOH)
        self.assertIn("hit Red Pharaoh on f8", played.shot.text)

        session = self.client.session(owner.session_id)
        self.assertEqual(session.version, played.version)
        self.assertEqual(session.status, service.FINISHED)
        self.assertEqual(list(session.moves), PHARAOH_HIT_GAME)

        seen = []
        over = events.wait_for(
            lambda e: self._collect_move(e, seen) or e.HasField("game_over"),
            timeout=10)
        self.assertEqual(seen, PHARAOH_HIT_GAME)
        self.assertEqual(over.game_over.result.outcome, game.SILVER_WINS)

    @staticmethod
    def _collect_move(event, seen):
        if event.HasField("move_made"):
            seen.append(event.move_made.move.notation)
        return False

    def test_live_events_arrive_as_they_happen(self):
        owner, alice, bob = self.new_game()
        start = self.client.session(owner.session_id).version
        with self.client.watch(owner.session_id, after_version=start) as events:
            alice.move("j5-j6")
            first = events.next_event(timeout=10)
            self.assertEqual(first.version, start + 1)
            self.assertEqual(first.move_made.mover, game.SILVER)
            self.assertIn("j5-j6", first.announcement)
            bob.move("h4-i3")
            second = events.next_event(timeout=10)
            self.assertEqual(second.move_made.move.notation, "h4-i3")
            self.assertRaises(TimeoutError, events.next_event, 0.2)
        self.assertIsNone(events.next_event(timeout=1))  # ended by cancel

    def test_watching_an_unknown_session_raises_not_found(self):
        with self.client.watch("no-such-session") as events:
            self.assert_khet_error(grpc.StatusCode.NOT_FOUND,
                                   "no-such-session", events.next_event, 10)

    def test_a_deleted_session_ends_the_stream(self):
        owner, _, _ = self.new_game()
        events = self.client.watch(owner.session_id)
        self.addCleanup(events.cancel)
        # The call opens lazily: deleting before the server holds the stream
        # would rightly answer NOT_FOUND. The first replayed event shows it
        # does.
        self.assertEqual(events.next_event(timeout=10).version, 1)
        owner.delete()
        deleted = events.wait_for(lambda e: e.HasField("session_deleted"),
                                  timeout=10)
        self.assertTrue(deleted.HasField("session_deleted"))
        self.assertIsNone(events.next_event(timeout=10))

    def test_structured_moves_and_legal_moves(self):
        owner, alice, bob = self.new_game()
        self.assertEqual(self.client.legal_moves(owner.session_id, "j1"),
                         ["j1L"])
        self.assertIn("j5-j6", self.client.legal_moves(owner.session_id))
        self.assertEqual(alice.move(step("j5", "j6")).move.notation, "j5-j6")
        self.assertEqual(bob.move(rotate("a8", clockwise=False)).move.notation,
                         "a8L")
        self.assertEqual(self.client.session(owner.session_id).moves[:],
                         ["j5-j6", "a8L"])

    def test_the_top_obelisk_of_a_stack_moves_alone(self):
        owner, alice, _ = self.new_game(setup_id="classic-1")
        played = alice.move(move_top("d1", "d2"))
        self.assertEqual(played.move.notation, "d1^d2")
        self.assertEqual(played.move.kind, game.MOVE_TOP)
        pieces = {p.square: p for p in played.board.pieces}
        self.assertEqual((pieces["d1"].height, pieces["d2"].height), (1, 1))

    def test_errors_carry_the_code_and_the_servers_reason(self):
        owner, alice, bob = self.new_game()
        version = self.client.session(owner.session_id).version
        self.assert_khet_error(grpc.StatusCode.INVALID_ARGUMENT, "e3",
                               alice.move, "e3-e2")
        self.assert_khet_error(grpc.StatusCode.INVALID_ARGUMENT, "e6",
                               alice.move, "e4-e6")
        self.assert_khet_error(grpc.StatusCode.FAILED_PRECONDITION, "",
                               bob.move, "h4-i3")
        self.assert_khet_error(grpc.StatusCode.UNAUTHENTICATED, "malformed",
                               self.client.move, owner.session_id,
                               "not-a-real-token", "j5-j6")
        self.assert_khet_error(grpc.StatusCode.PERMISSION_DENIED, "",
                               self.client.move, owner.session_id,
                               "x" * 43, "j5-j6")
        self.assert_khet_error(grpc.StatusCode.UNAUTHENTICATED, "",
                               self.client.move, owner.session_id, "",
                               "j5-j6")
        self.assert_khet_error(grpc.StatusCode.ABORTED, str(version - 1),
                               alice.move, "j5-j6",
                               expected_version=version - 1)
        self.assert_khet_error(grpc.StatusCode.NOT_FOUND, "no-such-session",
                               self.client.session, "no-such-session")
        error = self.assert_khet_error(grpc.StatusCode.INVALID_ARGUMENT, "",
                                       alice.move, "e3-e2")
        self.assertEqual(error.code_name, "INVALID_ARGUMENT")
        self.assertTrue(str(error).startswith("INVALID_ARGUMENT: "))
        # None of them changed the session.
        self.assertEqual(self.client.session(owner.session_id).version,
                         version)

    def test_a_retried_request_id_is_played_once(self):
        owner, alice, _ = self.new_game()
        first = alice.move("j5-j6", request_id="move-1")
        again = alice.move("j5-j6", request_id="move-1")
        self.assertEqual(again.version, first.version)
        self.assertEqual(self.client.session(owner.session_id).moves[:],
                         ["j5-j6"])

    def test_a_finished_game_refuses_moves(self):
        owner, alice, bob = self.new_game()
        resigned = bob.resign()
        self.assertEqual(resigned.result.outcome, game.SILVER_WINS)
        self.assertEqual(resigned.result.reason, game.RESIGNATION)
        self.assert_khet_error(grpc.StatusCode.FAILED_PRECONDITION, "",
                               alice.move, "j5-j6")

    def test_agreed_draw(self):
        _, alice, bob = self.new_game()
        alice.move("j5-j6")
        self.assertEqual(bob.offer_draw().draw_offered_by, game.RED)
        drawn = alice.accept_draw()
        self.assertEqual(drawn.result.outcome, game.DRAW)
        self.assertEqual(drawn.result.reason, game.AGREED_DRAW)

    def test_a_takeback_accepted_declined_and_refused(self):
        owner, alice, bob = self.new_game()
        self.assert_khet_error(grpc.StatusCode.FAILED_PRECONDITION, "",
                               alice.request_takeback)
        alice.move("j5-j6")
        bob.move("h4-i3")
        asked = alice.request_takeback()
        self.assertEqual(asked.takeback_requested_by, game.SILVER)
        self.assertEqual(bob.decline_takeback().takeback_requested_by,
                         game.COLOR_UNSPECIFIED)
        self.assertEqual(
            list(self.client.session(owner.session_id).moves),
            ["j5-j6", "h4-i3"])
        alice.request_takeback()
        taken = bob.accept_takeback()
        self.assertEqual(list(taken.moves), [])
        self.assertEqual(taken.takeback_requested_by, game.COLOR_UNSPECIFIED)
        owner.update_settings(takebacks=False)
        alice.move("j5-j6")
        self.assert_khet_error(grpc.StatusCode.FAILED_PRECONDITION, "",
                               alice.request_takeback)

    def test_the_computer_grants_a_takeback_at_once(self):
        owner = self.client.create_session("take it back",
                                           setup_id="classic-2")
        alice = self.client.join(owner.session_id, "alice", color="silver")
        owner.seat_computer(level=1)
        with self.client.watch(owner.session_id) as events:
            alice.move("j5-j6")
            events.wait_for(lambda e: e.HasField("move_made")
                            and e.move_made.mover == game.RED, timeout=20)
            alice.request_takeback()
            answered = events.wait_for(
                lambda e: e.HasField("takeback_answered"), timeout=10)
        self.assertTrue(answered.takeback_answered.accepted)
        self.assertEqual(answered.takeback_answered.plies, 2)
        self.assertEqual(answered.takeback_answered.requested_by, game.SILVER)
        self.assertEqual(list(self.client.session(owner.session_id).moves), [])

    def test_a_rated_game_rates_both_players(self):
        owner = self.client.create_session("rated", setup_id="classic-2",
                                           settings={"rated": True})
        winner, loser = "py:winner-" + owner.session_id, "py:loser/x"
        self.assert_khet_error(grpc.StatusCode.NOT_FOUND, "",
                               self.client.get_player, winner)
        alice = self.client.join(owner.session_id, "alice", player_id=winner)
        bob = self.client.join(owner.session_id, "bob", player_id=loser)
        self.assertEqual(bob.session.seats[0].player_id, winner)
        alice.move("j5-j6")
        session = self.client.session(owner.session_id)
        self.assertTrue(session.game_rated)
        self.assert_khet_error(grpc.StatusCode.FAILED_PRECONDITION, "",
                               alice.request_takeback)
        bob.resign()
        rated = self.client.get_player(winner)
        self.assertGreater(rated.rating, 1500)
        self.assertEqual((rated.games, rated.wins, rated.losses), (1, 1, 0))
        self.assertLess(self.client.get_player(loser).rating, 1500)
        ids = [player.player_id for player in
               self.client.list_players(page_size=1)]
        self.assertLess(ids.index(winner), ids.index(loser))
        self.assert_khet_error(grpc.StatusCode.INVALID_ARGUMENT, "",
                               self.client.join, owner.session_id, "eve",
                               player_id="no spaces")

    def test_the_computer_answers_a_move(self):
        owner = self.client.create_session("against the computer",
                                           setup_id="classic-2")
        alice = self.client.join(owner.session_id, "alice", color="silver")
        seated = owner.seat_computer(level=1)
        red = seated.seats[1]
        self.assertTrue(red.computer)
        self.assertEqual(red.computer_level, 1)
        with self.client.watch(owner.session_id) as events:
            played = alice.move("j5-j6")
            reply = events.wait_for(
                lambda e: e.HasField("move_made")
                and e.move_made.mover == game.RED, timeout=20)
        self.assertEqual(reply.version, played.version + 1)
        self.assertIn("computer", reply.announcement)

    def test_board_text_suggestions_and_catalogue(self):
        owner, _, _ = self.new_game()
        board = self.client.board_text(owner.session_id)
        self.assertIn("Silver to move, Khet 2.0", board)
        self.assertEqual(len(board.rstrip("\n").split("\n")), 11)
        suggestion = self.client.suggest(owner.session_id, max_depth=2)
        self.assertIn(suggestion.move.notation,
                      self.client.legal_moves(owner.session_id))
        self.assertIn("classic-2", [s.id for s in self.client.setups()])
        self.assertEqual([l.number for l in self.client.levels()],
                         [1, 2, 3, 4, 5])

    def test_sessions_pages_through_everything(self):
        ids = {self.client.create_session(f"paged {n}").session_id
               for n in range(3)}
        listed = {s.id for s in self.client.sessions(page_size=2)}
        self.assertLessEqual(ids, listed)
        waiting = {s.id for s in self.client.sessions("waiting_for_players")}
        self.assertLessEqual(ids, waiting)

    def test_bad_arguments_are_refused_before_any_call(self):
        with self.assertRaisesRegex(ValueError, '"blue"'):
            self.client.join("any", "carol", color="blue")
        with self.assertRaisesRegex(TypeError, "int"):
            self.client.move("any", "token", 42)
        with self.assertRaisesRegex(ValueError, '"over"'):
            list(self.client.sessions("over"))

    def test_an_unreachable_server_is_unavailable(self):
        with Client("127.0.0.1:1", timeout=2) as nowhere:
            self.assert_khet_error(grpc.StatusCode.UNAVAILABLE, "",
                                   nowhere.setups)

    def test_archived_game_record_positions_and_import(self):
        owner, alice, bob = self.new_game()
        alice.move(PHARAOH_HIT_GAME[0])
        bob.move(PHARAOH_HIT_GAME[1])
        owner.reset_game()
        game_id = owner.session_id + "-g1"
        listed = list(self.client.games(owner.session_id))
        self.assertEqual([g.id for g in listed], [game_id])
        self.assertEqual(listed[0].result, "*")
        self.assertIn(game_id, [g.id for g in self.client.games(
            player="alice", result="*")])
        text = self.client.record(owner.session_id, game_id)
        self.assertIn("1. j5-j6 h4-i3", text)
        at = self.client.position(owner.session_id, 1, game_id)
        self.assertEqual(at.move.notation, "j5-j6")
        self.assertTrue(at.legal_moves)
        self.assert_khet_error(grpc.StatusCode.INVALID_ARGUMENT, "ply 3",
                               self.client.position, owner.session_id, 3,
                               game_id)
        self.assert_khet_error(grpc.StatusCode.NOT_FOUND, "nope",
                               self.client.record, owner.session_id, "nope")
        imported = self.client.create_session_from_record("again", text, ply=1)
        self.assertEqual(list(imported.session.moves), ["j5-j6"])
        self.assert_khet_error(
            grpc.StatusCode.INVALID_ARGUMENT, "line 3",
            self.client.create_session_from_record, "bad",
            '[Setup "classic-2"]\n\n1. a1-a9 *\n')

    def test_the_computer_analyses_a_finished_game(self):
        owner, alice, bob = self.new_game()
        alice.move(PHARAOH_HIT_GAME[0])
        self.assert_khet_error(grpc.StatusCode.FAILED_PRECONDITION, "",
                               self.client.analyze_game, owner.session_id)
        bob.move(PHARAOH_HIT_GAME[1])
        for ply, notation in enumerate(PHARAOH_HIT_GAME[2:], start=2):
            (alice if ply % 2 == 0 else bob).move(notation)
        game_id = self.client.session(owner.session_id).game_id

        first = self.client.analyze_game(owner.session_id, ms_per_ply=20)
        self.assertEqual(first.game_id, game_id)
        self.assertEqual(first.plies, len(PHARAOH_HIT_GAME))
        analysis = self.client.wait_for_analysis(owner.session_id,
                                                 ms_per_ply=20, timeout=50)
        self.assertEqual(analysis.state, service.GameAnalysis.DONE)
        self.assertEqual(analysis.game_id, game_id)
        self.assertEqual(analysis.plies, len(PHARAOH_HIT_GAME))
        self.assertEqual(analysis.plies_analyzed, len(PHARAOH_HIT_GAME))
        self.assertEqual([m.ply for m in analysis.moves],
                         list(range(1, len(PHARAOH_HIT_GAME) + 1)))
        self.assertEqual([m.played for m in analysis.moves], PHARAOH_HIT_GAME)
        self.assertEqual([m.mover for m in analysis.moves],
                         [game.SILVER, game.RED] * 8 + [game.SILVER])
        for move in analysis.moves:
            self.assertEqual(move.loss, max(0, move.best_score
                                            - move.played_score), move)
            self.assertNotEqual(move.judgement,
                                service.MOVE_JUDGEMENT_UNSPECIFIED, move)
        # After Red's a6-a7 Silver hits the Pharaoh in three plies, whatever
        # Red does: the search sees that loss, and a move that avoids it.
        allowed = analysis.moves[13]
        self.assertEqual(allowed.played, "a6-a7")
        self.assertEqual(allowed.judgement, service.BLUNDER, allowed)
        self.assertLess(allowed.played_score, -29800, allowed)
        self.assertTrue(allowed.best_move)
        self.assertNotEqual(allowed.best_move, allowed.played)
        before = self.client.position(owner.session_id, 13, game_id)
        self.assertIn(allowed.best_move,
                      [move.notation for move in before.legal_moves])
        # The winning shot itself gave nothing away.
        self.assertEqual(analysis.moves[16].judgement, service.GOOD)
        self.assertEqual(
            self.client.game_record(owner.session_id, game_id).analysis,
            analysis)
        with self.assertRaisesRegex(ValueError, "timeout"):
            self.client.wait_for_analysis(owner.session_id, timeout=0)


class TlsTest(unittest.TestCase):
    """khetd over TLS with a self-signed certificate for 127.0.0.1."""

    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.TemporaryDirectory()
        cls.cert = os.path.join(cls.dir.name, "cert.pem")
        key = os.path.join(cls.dir.name, "key.pem")
        subprocess.run(
            ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes",
             "-subj", "/CN=localhost",
             "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
             "-days", "1", "-keyout", key, "-out", cls.cert],
            check=True, capture_output=True)
        cls.server = LocalKhetd(
            args=[f"--tls_cert={cls.cert}", f"--tls_key={key}"]).start()

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()
        cls.dir.cleanup()

    def test_a_game_over_tls_with_the_ca_file(self):
        with Client(self.server.target, timeout=10,
                    ca_cert=self.cert) as client:
            owner = client.create_session("tls game")
            alice = client.join(owner.session_id, "alice")
            client.join(owner.session_id, "bob")
            with client.watch(owner.session_id) as events:
                played = alice.move("j5-j6")
                moved = events.wait_for(
                    lambda event: event.HasField("move_made"), timeout=10)
            self.assertEqual(moved.version, played.version)
            self.assertEqual(moved.move_made.move.notation, "j5-j6")

    def test_the_certificate_name_can_differ_from_the_target(self):
        with Client(self.server.target, timeout=10, ca_cert=self.cert,
                    server_name="localhost") as client:
            self.assertIn("classic-2", [s.id for s in client.setups()])

    def test_plaintext_and_an_untrusted_certificate_are_unavailable(self):
        with Client(self.server.target, timeout=3) as plain:
            with self.assertRaises(KhetError) as caught:
                plain.setups()
            self.assertEqual(caught.exception.code,
                             grpc.StatusCode.UNAVAILABLE)
        with Client(self.server.target, timeout=3, tls=True) as untrusted:
            with self.assertRaises(KhetError) as caught:
                untrusted.setups()
            self.assertEqual(caught.exception.code,
                             grpc.StatusCode.UNAVAILABLE)

    def test_a_missing_ca_file_is_an_error_at_once(self):
        with self.assertRaises(FileNotFoundError):
            Client(self.server.target, ca_cert=os.path.join(self.dir.name,
                                                           "none.pem"))


if __name__ == "__main__":
    unittest.main()
