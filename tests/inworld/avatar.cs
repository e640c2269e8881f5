// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// avatar.cs: one avatar in an OpenSimulator region, driven by the in-world
// tests over stdin and stdout with JSON lines. It is a viewer-protocol
// client built on libOpenMetaverse, the library OpenSimulator ships: the
// harness compiles it with mcs against that library (inworld.py).
//
// Each request is one line {"id": N, "cmd": NAME, ...}; each answer one
// line {"id": N, "ok": true, ...} or {"id": N, "ok": false, "error": TEXT},
// in the requests' order except for `prims`, answered from a thread of its
// own.
// Answers are the only thing written to stdout; the library's own log goes
// to stderr. Commands (arguments, then what the answer holds):
//   login      first, last, password, uri, start ("uri:Region&x&y&z" or
//              "last"): agent, region, pos
//   logout
//   where      pos, region
//   teleport   pos [x, y, z] within the region: pos
//   find       name, timeout: roots, the local ids of root prims so named
//   prims      root (a local id), expect (prims in the linkset), timeout,
//              after (a seq; default none), wait (seconds, default 0):
//              prims, root first, each with local_id, parent_id, id, name,
//              description, pos and rot (in the root's frame; the root's
//              own are zero), region_pos, region_rot, scale, text,
//              text_color, faces (0..5: texture, color, glow, fullbright),
//              and changed: when this client's copy of the prim last
//              changed in what the tests read (pos, rot, scale, text, the
//              faces' textures and colours), in Unix seconds of this
//              machine's clock, taken as libOpenMetaverse hands the
//              client the update (Changes below); seq, the linkset's
//              latest change's number, and now. With `after`, the answer
//              waits (up to `wait` s) for a change numbered above it, so a
//              test reads the prims again as soon as they change.
//              The viewer protocol carries no link numbers.
//   refresh    root (a local id): asks the region to send the linkset's
//              prims again in full (RequestMultipleObjects), as a viewer
//              asks for objects missing from its cache: count
//   touch      local_id, face, st [s, t], uv (default st), pos (the
//              touched point in the region; default the prim's centre):
//              an ObjectGrab then an ObjectDeGrab, as a viewer's click;
//              sent, the Unix time (this machine's clock) as the grab was
//              queued (sent within 10 ms: Changes below)
//   dialogs    dialogs: those received and not yet taken, oldest first
//   dialog     message (a regex, default any), object_id (default any),
//              timeout: takes the oldest dialog whose message matches (from
//              that object), waiting for one: dialog (object_id,
//              object_name, message, buttons, channel)
//   reply      channel, object_id, button: answers a dialog with a
//              button's label, or an llTextBox with the text typed; sent,
//              as for touch
//   chat       after (a cursor, default 0): lines heard since, and cursor
//   wait_chat  pattern (a regex), after, timeout: the first line heard at
//              or after `after` whose text matches, and the cursor after it
//   say        text, channel (default 0)
//   scripts    local_id, timeout: the prim's scripts (name, item). Their
//              item ids are libOpenMetaverse's reading of the task
//              inventory, wrong for some items with OpenSimulator 0.9.2.2
//              (seen: khet_board's all zeros, khet_render's an id the
//              region runs no script under): for script_reset take the
//              region's ids (Region.scripts(), its `yeng ls`).
//   script_running  local_id, item, running (true or false)
//   script_reset    local_id, item: as a viewer's Reset Scripts
// A chat line is {from, source_id, owner_id, type (say, whisper, shout,
// owner_say, region_say_to, region_say, debug), source (agent, object,
// system), text}.
//
// Changes: libOpenMetaverse applies each ObjectUpdate (full, compressed)
// and ImprovedTerseObjectUpdate to its copy of the prim and then raises
// ObjectUpdate or TerseObjectUpdate; the handler here keeps, per prim, what
// the tests read of it and when that last changed. A prim whose copy
// differs from what the handler last kept when `prims` reads it (its update
// applied, the event not yet handled) counts as changed at that read.
// libOpenMetaverse hands each packet to its handlers on the thread pool by
// default, where two updates of one prim that came close together may be
// applied in either order and leave the copy stale until the prim changes
// again; a viewer applies them as they come. So the object updates' handlers
// are made to run in order, on the library's packet thread (InOrder), which
// also stamps each change as it comes, not when the pool gets to it.
//
// Outgoing packets wait in libOpenMetaverse's queue, which sends one every
// 10 ms at most: a touch's "sent" is when it was queued, a few ms before.

using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Reflection;
using System.Text.RegularExpressions;
using System.Threading;
using OpenMetaverse;
using OpenMetaverse.Packets;
using OpenMetaverse.StructuredData;

class Avatar
{
    const int Faces = 6;  // a box's faces

    readonly GridClient client = new GridClient();
    readonly object gate = new object();        // guards the lists below
    readonly List<OSDMap> dialogs = new List<OSDMap>();
    readonly List<OSDMap> heard = new List<OSDMap>();

    static void Main()
    {
        var answers = new StreamWriter(Console.OpenStandardOutput());
        Console.SetOut(Console.Error);  // the library logs to Console.Out
        new Avatar().Serve(Console.In, answers);
    }

    Avatar()
    {
        Settings.LOG_LEVEL = Helpers.LogLevel.Warning;
        client.Settings.MULTIPLE_SIMS = false;
        client.Settings.ALWAYS_REQUEST_OBJECTS = true;
        client.Settings.OBJECT_TRACKING = true;
        client.Settings.SEND_AGENT_APPEARANCE = false;
        client.Settings.STORE_LAND_PATCHES = false;
        client.Settings.USE_ASSET_CACHE = false;
        client.Settings.LOGOUT_TIMEOUT = 3000;  // ms
        client.Self.ScriptDialog += OnDialog;
        client.Self.ChatFromSimulator += OnChat;
        client.Objects.ObjectUpdate += (sender, e) => Noted(e.Prim);
        client.Objects.TerseObjectUpdate += (sender, e) => Noted(e.Prim);
        InOrder(PacketType.ObjectUpdate, PacketType.ObjectUpdateCompressed,
                PacketType.ImprovedTerseObjectUpdate, PacketType.ObjectUpdateCached,
                PacketType.KillObject);
    }

    // Makes the handlers of these packets run on libOpenMetaverse's packet
    // thread, in the order the packets came (see Changes above): its
    // dispatcher's entry for each type has an IsAsync flag, set when the
    // library registered them (not public: reached by reflection).
    void InOrder(params PacketType[] types)
    {
        const BindingFlags Private = BindingFlags.NonPublic | BindingFlags.Instance;
        var events = typeof(NetworkManager).GetField("PacketEvents", Private).GetValue(client.Network);
        var table = (System.Collections.IDictionary)events.GetType().GetField("_EventTable", Private)
                                                          .GetValue(events);
        lock (table)
            foreach (var type in types)
            {
                var entry = table[type];
                if (entry == null) throw new Exception("libOpenMetaverse handles no " + type);
                entry.GetType().GetField("IsAsync").SetValue(entry, false);
            }
    }

    static readonly DateTime Epoch = new DateTime(1970, 1, 1, 0, 0, 0, DateTimeKind.Utc);

    static double UnixNow()
    {
        return (DateTime.UtcNow - Epoch).TotalSeconds;
    }

    // Per prim (local id): what the tests read of it, when that last
    // changed and the change's number; guarded by `gate`.
    class Seen
    {
        public string Look;
        public double Changed;
        public long Seq;
    }
    readonly Dictionary<uint, Seen> seen = new Dictionary<uint, Seen>();
    long changes = 0;

    static string LookOf(Primitive prim)
    {
        var look = new System.Text.StringBuilder();
        look.Append(prim.Position).Append(prim.Rotation).Append(prim.Scale).Append('|')
            .Append(prim.Text ?? "").Append('|');
        if (prim.Textures != null)
            for (uint i = 0; i < Faces; ++i)
            {
                var face = prim.Textures.GetFace(i);
                look.Append(face.TextureID).Append(face.RGBA).Append(';');
            }
        return look.ToString();
    }

    // Notes `prim`'s look, and when it changed; the caller need not hold
    // the gate. Returns what is kept for it.
    Seen Noted(Primitive prim)
    {
        if (prim == null) return null;
        var look = LookOf(prim);
        lock (gate)
        {
            Seen kept;
            if (!seen.TryGetValue(prim.LocalID, out kept))
                seen[prim.LocalID] = kept = new Seen();
            if (kept.Look != look)
            {
                kept.Look = look;
                kept.Changed = UnixNow();
                kept.Seq = ++changes;
                Monitor.PulseAll(gate);
            }
            return kept;
        }
    }

    // Each request is answered in turn, but `prims` on a thread of its own
    // (it may wait for a change), so the answers may come out of order:
    // the driver matches them by id.
    void Serve(TextReader requests, TextWriter answers)
    {
        string line;
        while ((line = requests.ReadLine()) != null)
        {
            if (line.Trim() == "") continue;
            OSDMap request = null;
            try
            {
                request = (OSDMap)OSDParser.DeserializeJson(line);
            }
            catch (Exception e)
            {
                Write(answers, new OSD(), Failed(e));
                continue;
            }
            if (request["cmd"].AsString() == "prims")
            {
                var taken = request;
                new Thread(() => Answer(taken, answers)) { IsBackground = true }.Start();
            }
            else
            {
                Answer(request, answers);
            }
        }
        if (client.Network.Connected) client.Network.Logout();
    }

    void Answer(OSDMap request, TextWriter answers)
    {
        OSDMap answer;
        try
        {
            answer = Handle(request["cmd"].AsString(), request);
            answer["ok"] = OSD.FromBoolean(true);
        }
        catch (Exception e)
        {
            answer = Failed(e);
        }
        Write(answers, request["id"], answer);
    }

    static OSDMap Failed(Exception e)
    {
        var answer = new OSDMap();
        answer["ok"] = OSD.FromBoolean(false);
        answer["error"] = OSD.FromString(e.Message);
        return answer;
    }

    readonly object output = new object();  // one answer written at a time

    void Write(TextWriter answers, OSD id, OSDMap answer)
    {
        answer["id"] = id;
        var text = OSDParser.SerializeJsonString(answer, true);
        lock (output)
        {
            answers.WriteLine(text);
            answers.Flush();
        }
    }

    OSDMap Handle(string cmd, OSDMap a)
    {
        switch (cmd)
        {
            case "login": return Login(a);
            case "logout": client.Network.Logout(); return new OSDMap();
            case "where": return Where();
            case "teleport": return Teleport(a);
            case "find": return Find(a["name"].AsString(), Seconds(a));
            case "prims":
                return Prims((uint)a["root"].AsInteger(), a["expect"].AsInteger(), Seconds(a),
                             a.ContainsKey("after") ? a["after"].AsLong() : -1,
                             a.ContainsKey("wait") ? a["wait"].AsReal() : 0);
            case "touch": return Touch(a);
            case "refresh": return Refresh((uint)a["root"].AsInteger());
            case "dialogs": lock (gate) return Map("dialogs", new OSDArray(dialogs.Cast<OSD>().ToList()));
            case "dialog": return TakeDialog(a);
            case "reply":
            {
                var sent = UnixNow();
                client.Self.ReplyToScriptDialog(a["channel"].AsInteger(), 0, a["button"].AsString(),
                                                a["object_id"].AsUUID());
                return Map("sent", OSD.FromReal(sent));
            }
            case "chat": return Heard(a["after"].AsInteger());
            case "wait_chat": return WaitChat(a);
            case "say":
                client.Self.Chat(a["text"].AsString(), a["channel"].AsInteger(), ChatType.Normal);
                return new OSDMap();
            case "scripts": return Scripts(Prim((uint)a["local_id"].AsInteger()), Seconds(a));
            case "script_running":
                client.Inventory.RequestSetScriptRunning(Prim((uint)a["local_id"].AsInteger()).ID,
                                                         a["item"].AsUUID(), a["running"].AsBoolean());
                return new OSDMap();
            case "script_reset": return ResetScript(a);
            default: throw new Exception("unknown command " + cmd);
        }
    }

    static double Seconds(OSDMap a)
    {
        return a.ContainsKey("timeout") ? a["timeout"].AsReal() : 30.0;
    }

    static OSDMap Map(string key, OSD value)
    {
        var map = new OSDMap();
        map[key] = value;
        return map;
    }

    Simulator Sim()
    {
        var sim = client.Network.CurrentSim;
        if (sim == null || !client.Network.Connected) throw new Exception("not logged in");
        return sim;
    }

    OSDMap Login(OSDMap a)
    {
        var p = client.Network.DefaultLoginParams(a["first"].AsString(), a["last"].AsString(),
                                                  a["password"].AsString(), "khet-inworld-test", "1.0");
        p.URI = a["uri"].AsString();
        p.Start = a.ContainsKey("start") ? a["start"].AsString() : "last";
        if (!client.Network.Login(p))
            throw new Exception("login failed: " + client.Network.LoginMessage);
        // Objects are sent only within the camera's far clip.
        client.Self.Movement.Camera.Far = 256f;
        client.Self.Movement.SendUpdate(true);
        var answer = Where();
        answer["agent"] = OSD.FromUUID(client.Self.AgentID);
        return answer;
    }

    OSDMap Where()
    {
        var answer = Map("pos", OSD.FromVector3(client.Self.SimPosition));
        answer["region"] = OSD.FromString(Sim().Name);
        return answer;
    }

    OSDMap Teleport(OSDMap a)
    {
        if (!client.Self.Teleport(Sim().Name, a["pos"].AsVector3()))
            throw new Exception("teleport failed: " + client.Self.TeleportMessage);
        return Where();
    }

    // Waits for `done` to hold, checking every 100 ms; false on timeout.
    static bool Until(Func<bool> done, double seconds)
    {
        var deadline = DateTime.UtcNow.AddSeconds(seconds);
        while (!done())
        {
            if (DateTime.UtcNow > deadline) return false;
            Thread.Sleep(100);
        }
        return true;
    }

    Primitive Prim(uint localId)
    {
        Primitive prim;
        if (!Sim().ObjectsPrimitives.TryGetValue(localId, out prim))
            throw new Exception("no prim with local id " + localId + " in view");
        return prim;
    }

    // Asks for the properties (the names) of `prims` that have none yet,
    // at most every 2 s: selecting a prim, as a viewer's edit does, makes
    // the region send them; it is deselected at once.
    readonly Dictionary<uint, DateTime> asked = new Dictionary<uint, DateTime>();
    void AskNames(IEnumerable<Primitive> prims)
    {
        var ids = new List<uint>();
        lock (asked)
            foreach (var prim in prims)
            {
                if (NameOf(prim) != null) continue;
                DateTime last;
                if (asked.TryGetValue(prim.LocalID, out last) && DateTime.UtcNow - last < TimeSpan.FromSeconds(2))
                    continue;
                asked[prim.LocalID] = DateTime.UtcNow;
                ids.Add(prim.LocalID);
            }
        if (ids.Count == 0) return;
        client.Objects.SelectObjects(Sim(), ids.ToArray(), false);
        client.Objects.DeselectObjects(Sim(), ids.ToArray());
    }

    static string NameOf(Primitive prim)
    {
        return prim.Properties == null ? null : prim.Properties.Name;
    }

    OSDMap Find(string name, double seconds)
    {
        List<Primitive> found = null;
        Until(() => {
            var roots = Sim().ObjectsPrimitives.FindAll((Primitive p) => p.ParentID == 0);
            AskNames(roots);
            found = roots.Where(p => NameOf(p) == name).OrderBy(p => p.LocalID).ToList();
            return found.Count > 0;
        }, seconds);
        if (found.Count == 0) throw new Exception("no object named " + name + " in view after " + seconds + " s");
        return Map("roots", new OSDArray(found.Select(p => OSD.FromInteger((int)p.LocalID)).ToList()));
    }

    OSDMap Prims(uint rootId, int expect, double seconds, long after, double wait)
    {
        List<Primitive> parts = null;
        bool complete = Until(() => {
            parts = Sim().ObjectsPrimitives.FindAll((Primitive p) => p.LocalID == rootId || p.ParentID == rootId);
            AskNames(parts);
            return parts.Count == expect && parts.All(p => NameOf(p) != null && p.Textures != null);
        }, seconds);
        if (!complete)
            throw new Exception("the linkset of " + rootId + " shows " + parts.Count + " prims (" +
                                parts.Count(p => NameOf(p) != null) + " named), not " + expect +
                                ", after " + seconds + " s");
        var deadline = DateTime.UtcNow.AddSeconds(wait);
        while (after >= 0)
        {
            var kept = parts.Select(Noted).ToList();
            lock (gate)
            {
                var left = deadline - DateTime.UtcNow;
                if (kept.Max(k => k.Seq) > after || left <= TimeSpan.Zero) break;
                Monitor.Wait(gate, left);
            }
        }
        // Each prim noted right after it is described: its "changed" is
        // that of the state described (or a moment later).
        var root = parts.First(p => p.LocalID == rootId);
        var list = new OSDArray();
        long seq = 0;
        foreach (var prim in parts.OrderBy(p => p.LocalID != rootId).ThenBy(p => p.LocalID))
        {
            var d = Describe(prim, root);
            var kept = Noted(prim);
            lock (gate)
            {
                d["changed"] = OSD.FromReal(kept.Changed);
                seq = Math.Max(seq, kept.Seq);
            }
            list.Add(d);
        }
        var answer = Map("prims", list);
        answer["seq"] = OSD.FromLong(seq);
        answer["now"] = OSD.FromReal(UnixNow());
        return answer;
    }

    OSDMap Refresh(uint rootId)
    {
        var ids = Sim().ObjectsPrimitives.FindAll((Primitive p) => p.LocalID == rootId || p.ParentID == rootId)
                       .Select(p => p.LocalID).ToList();
        client.Objects.RequestObjects(Sim(), ids);
        return Map("count", OSD.FromInteger(ids.Count));
    }

    static OSD Color(Color4 c)
    {
        return new OSDArray(new List<OSD> { OSD.FromReal(c.R), OSD.FromReal(c.G), OSD.FromReal(c.B), OSD.FromReal(c.A) });
    }

    static OSDMap Describe(Primitive prim, Primitive root)
    {
        bool isRoot = prim.LocalID == root.LocalID;
        var pos = isRoot ? Vector3.Zero : prim.Position;
        var rot = isRoot ? Quaternion.Identity : prim.Rotation;
        var d = new OSDMap();
        d["local_id"] = OSD.FromInteger((int)prim.LocalID);
        d["parent_id"] = OSD.FromInteger((int)prim.ParentID);
        d["id"] = OSD.FromUUID(prim.ID);
        d["name"] = OSD.FromString(NameOf(prim));
        d["description"] = OSD.FromString(prim.Properties.Description ?? "");
        d["pos"] = OSD.FromVector3(pos);
        d["rot"] = OSD.FromQuaternion(rot);
        d["region_pos"] = OSD.FromVector3(root.Position + pos * root.Rotation);
        d["region_rot"] = OSD.FromQuaternion(isRoot ? root.Rotation : root.Rotation * rot);
        d["scale"] = OSD.FromVector3(prim.Scale);
        d["text"] = OSD.FromString(prim.Text ?? "");
        d["text_color"] = Color(prim.TextColor);
        var faces = new OSDArray();
        for (uint i = 0; i < Faces; ++i)
        {
            var face = prim.Textures.GetFace(i);
            var f = new OSDMap();
            f["texture"] = OSD.FromUUID(face.TextureID);
            f["color"] = Color(face.RGBA);
            f["glow"] = OSD.FromReal(face.Glow);
            f["fullbright"] = OSD.FromBoolean(face.Fullbright);
            faces.Add(f);
        }
        d["faces"] = faces;
        return d;
    }

    OSDMap Touch(OSDMap a)
    {
        var prim = Prim((uint)a["local_id"].AsInteger());
        var st = a.ContainsKey("st") ? a["st"].AsVector2() : Vector2.Zero;
        var uv = a.ContainsKey("uv") ? a["uv"].AsVector2() : st;
        var stCoord = new Vector3(st.X, st.Y, 0);
        var uvCoord = new Vector3(uv.X, uv.Y, 0);
        int face = a.ContainsKey("face") ? a["face"].AsInteger() : 0;
        var pos = a.ContainsKey("pos") ? a["pos"].AsVector3() : prim.Position;
        var normal = Vector3.UnitZ;
        var binormal = Vector3.UnitX;
        var sent = UnixNow();
        client.Self.Grab(prim.LocalID, Vector3.Zero, uvCoord, stCoord, face, pos, normal, binormal);
        client.Self.DeGrab(prim.LocalID, uvCoord, stCoord, face, pos, normal, binormal);
        return Map("sent", OSD.FromReal(sent));
    }

    void OnDialog(object sender, ScriptDialogEventArgs e)
    {
        var d = new OSDMap();
        d["object_id"] = OSD.FromUUID(e.ObjectID);
        d["object_name"] = OSD.FromString(e.ObjectName);
        d["message"] = OSD.FromString(e.Message);
        d["buttons"] = new OSDArray(e.ButtonLabels.Select(b => OSD.FromString(b)).ToList());
        d["channel"] = OSD.FromInteger(e.Channel);
        lock (gate)
        {
            dialogs.Add(d);
            Monitor.PulseAll(gate);
        }
    }

    OSDMap TakeDialog(OSDMap a)
    {
        var pattern = new Regex(a.ContainsKey("message") ? a["message"].AsString() : "");
        var from = a.ContainsKey("object_id") ? a["object_id"].AsUUID() : UUID.Zero;
        var deadline = DateTime.UtcNow.AddSeconds(Seconds(a));
        lock (gate)
        {
            while (true)
            {
                var found = dialogs.FirstOrDefault(d => pattern.IsMatch(d["message"].AsString()) &&
                                                        (from == UUID.Zero || d["object_id"].AsUUID() == from));
                if (found != null)
                {
                    dialogs.Remove(found);
                    return Map("dialog", found);
                }
                var left = deadline - DateTime.UtcNow;
                if (left <= TimeSpan.Zero)
                    throw new Exception("no dialog matching /" + pattern + "/ after " + Seconds(a) +
                                        " s; pending: " + OSDParser.SerializeJsonString(new OSDArray(dialogs.Cast<OSD>().ToList()), true));
                Monitor.Wait(gate, left);
            }
        }
    }

    static readonly Dictionary<ChatType, string> ChatTypes = new Dictionary<ChatType, string> {
        { ChatType.Whisper, "whisper" }, { ChatType.Normal, "say" }, { ChatType.Shout, "shout" },
        { ChatType.OwnerSay, "owner_say" }, { ChatType.RegionSayTo, "region_say_to" },
        { ChatType.RegionSay, "region_say" }, { ChatType.Debug, "debug" } };

    void OnChat(object sender, ChatEventArgs e)
    {
        string type;
        if (!ChatTypes.TryGetValue(e.Type, out type)) return;  // typing signals
        var line = new OSDMap();
        line["from"] = OSD.FromString(e.FromName);
        line["source_id"] = OSD.FromUUID(e.SourceID);
        line["owner_id"] = OSD.FromUUID(e.OwnerID);
        line["type"] = OSD.FromString(type);
        line["source"] = OSD.FromString(e.SourceType.ToString().ToLowerInvariant());
        line["text"] = OSD.FromString(e.Message);
        lock (gate)
        {
            heard.Add(line);
            Monitor.PulseAll(gate);
        }
    }

    OSDMap Heard(int after)
    {
        lock (gate)
        {
            var answer = Map("lines", new OSDArray(heard.Skip(after).Cast<OSD>().ToList()));
            answer["cursor"] = OSD.FromInteger(heard.Count);
            return answer;
        }
    }

    OSDMap WaitChat(OSDMap a)
    {
        var pattern = new Regex(a["pattern"].AsString());
        int at = a.ContainsKey("after") ? a["after"].AsInteger() : 0;
        var deadline = DateTime.UtcNow.AddSeconds(Seconds(a));
        lock (gate)
        {
            while (true)
            {
                for (; at < heard.Count; ++at)
                {
                    if (pattern.IsMatch(heard[at]["text"].AsString()))
                    {
                        var answer = Map("line", heard[at]);
                        answer["cursor"] = OSD.FromInteger(at + 1);
                        return answer;
                    }
                }
                var left = deadline - DateTime.UtcNow;
                if (left <= TimeSpan.Zero)
                    throw new Exception("heard nothing matching /" + pattern + "/ after " + Seconds(a) +
                                        " s; last heard: " + OSDParser.SerializeJsonString(
                                            new OSDArray(heard.Skip(Math.Max(0, heard.Count - 5)).Cast<OSD>().ToList()), true));
                Monitor.Wait(gate, left);
            }
        }
    }

    OSDMap Scripts(Primitive prim, double seconds)
    {
        var items = client.Inventory.GetTaskInventory(prim.ID, prim.LocalID, (int)(seconds * 1000));
        if (items == null) throw new Exception("no inventory of " + prim.LocalID + " after " + seconds + " s");
        var list = new OSDArray();
        foreach (var item in items.OfType<InventoryItem>().Where(i => i.AssetType == AssetType.LSLText))
        {
            var s = new OSDMap();
            s["name"] = OSD.FromString(item.Name);
            s["item"] = OSD.FromUUID(item.UUID);
            list.Add(s);
        }
        return Map("scripts", list);
    }

    OSDMap ResetScript(OSDMap a)
    {
        var packet = new ScriptResetPacket();
        packet.AgentData.AgentID = client.Self.AgentID;
        packet.AgentData.SessionID = client.Self.SessionID;
        packet.Script.ObjectID = Prim((uint)a["local_id"].AsInteger()).ID;
        packet.Script.ItemID = a["item"].AsUUID();
        client.Network.SendPacket(packet);
        return new OSDMap();
    }
}
