#!/usr/bin/python3
# Copyright 2026 The khet Authors
# SPDX-License-Identifier: Apache-2.0

"""Writes the in-world Khet board as an OpenSimulator region archive (OAR).

make_oar.py --server http://127.0.0.1:8080 [--debug] --out khet-board.oar
            [--at X,Y,Z] [--name NAME] [--scripts DIR]

The archive holds one object, the linkset that linkset.json describes: the
root box with the board texture on its grid face and every child prim parked
inside it, the root's inventory (the textures, the scripts, running, and a
"khet config" notecard naming the server). `load oar --merge FILE` on the
region's console adds it to a region (README.md, "Loading the board into
OpenSimulator").

The output is a function of the inputs alone: ids are name-based UUIDs (an
asset's also of its content, so a changed texture or script is a new asset),
and every time stamp is MTIME. Textures become JPEG 2000 codestreams through
Pillow (Debian's python3-pil, built with OpenJPEG), as viewers expect.
"""

import argparse
import base64
import gzip
import hashlib
import io
import json
import pathlib
import struct
import sys
import tarfile
import uuid
import xml.etree.ElementTree as ET

HERE = pathlib.Path(__file__).resolve().parent
LINKSET = HERE / "linkset.json"
NAMESPACE = uuid.uuid5(uuid.NAMESPACE_URL, "khet:clients/lsl/make_oar.py")
MTIME = 1704067200  # 2024-01-01, every time stamp in the archive
ZERO = "00000000-0000-0000-0000-000000000000"
ALL_PERMISSIONS = 2147483647
# Asset and inventory types, and the archive's file name endings.
TEXTURE, NOTECARD, SCRIPT = 0, 7, 10
ENDING = {TEXTURE: "_texture.jp2", NOTECARD: "_notecard.txt",
          SCRIPT: "_script.lsl"}
# A box: square profile along a straight path (the viewer's default prim).
BOX = {"ProfileCurve": 1, "PathCurve": 16, "PathScaleX": 100,
       "PathScaleY": 100, "PCode": 9, "ProfileShape": "Square",
       "HollowShape": "Same"}
PHYSICS_PRIM, PHYSICS_NONE = 0, 1  # PRIM_PHYSICS_SHAPE_TYPE values


def name_uuid(*parts):
    """A UUID that is a function of `parts`."""
    return str(uuid.uuid5(NAMESPACE, "\x1f".join(str(p) for p in parts)))


def content_uuid(kind, name, data):
    return name_uuid(kind, name, hashlib.sha256(data).hexdigest())


def jpeg2000(png):
    """The PNG (bytes) as a lossless JPEG 2000 codestream (what viewers
    decode)."""
    from PIL import Image  # python3-pil; only the textures need it
    out = io.BytesIO()
    with Image.open(io.BytesIO(png)) as image:
        image.convert("RGB").save(out, format="JPEG2000", no_jp2=True)
    return out.getvalue()


def notecard(text):
    """`text` in the Linden notecard format a region reads."""
    body = text.encode()
    return (b"Linden text version 2\n{\nLLEmbeddedItems version 1\n{\n"
            b"count 0\n}\nText length %d\n" % len(body)) + body + b"}\n"


def texture_entry(default, faces, alpha):
    """A prim's faces in the viewer protocol's binary TextureEntry: every
    face shows `default` but those in `faces` ({face: texture uuid}), white
    at `alpha`, with the default repeats, offsets, rotation, material,
    media and glow. Each section is a default value, then (face bits,
    value) exceptions, then a zero byte."""
    def face_bits(bits):
        groups = []
        while bits:
            groups.insert(0, bits & 0x7F)
            bits >>= 7
        return bytes(g | 0x80 for g in groups[:-1]) + bytes(groups[-1:])
    out = bytearray(uuid.UUID(default).bytes)
    by_texture = {}
    for face, texture in sorted(faces.items()):
        by_texture[texture] = by_texture.get(texture, 0) | (1 << face)
    for texture, bits in by_texture.items():
        out += face_bits(bits) + uuid.UUID(texture).bytes
    out += b"\0"
    # Colours are stored inverted (255 - value), RGBA.
    out += bytes(255 - round(c * 255) for c in (1.0, 1.0, 1.0, alpha)) + b"\0"
    out += struct.pack("<f", 1.0) + b"\0"    # repeats u
    out += struct.pack("<f", 1.0) + b"\0"    # repeats v
    out += struct.pack("<h", 0) + b"\0"      # offset u
    out += struct.pack("<h", 0) + b"\0"      # offset v
    out += struct.pack("<h", 0) + b"\0"      # rotation
    out += b"\0\0" + b"\0\0" + b"\0\0"      # material, media, glow
    return bytes(out)


def sub(parent, tag, text=None):
    element = ET.SubElement(parent, tag)
    if text is not None:
        element.text = str(text)
    return element


def sub_uuid(parent, tag, value):
    sub(sub(parent, tag), "UUID", value)


def sub_vector(parent, tag, values):
    element = sub(parent, tag)
    for axis, value in zip("XYZW", values):
        sub(element, axis, repr(float(value)))


def inventory_item(parent, part_id, item):
    element = sub(parent, "TaskInventoryItem")
    sub_uuid(element, "AssetID", item["asset"])
    sub(element, "BasePermissions", ALL_PERMISSIONS)
    sub(element, "CreationDate", MTIME)
    sub_uuid(element, "CreatorID", ZERO)
    sub(element, "Description", "")
    sub(element, "EveryonePermissions", 0)
    sub(element, "Flags", 0)
    sub_uuid(element, "GroupID", ZERO)
    sub(element, "GroupPermissions", 0)
    sub(element, "InvType", item["type"])
    sub_uuid(element, "ItemID", item["id"])
    sub_uuid(element, "OldItemID", ZERO)
    sub_uuid(element, "LastOwnerID", ZERO)
    sub(element, "Name", item["name"])
    sub(element, "NextPermissions", ALL_PERMISSIONS)
    sub_uuid(element, "OwnerID", ZERO)
    sub(element, "CurrentPermissions", ALL_PERMISSIONS)
    sub_uuid(element, "ParentID", part_id)
    sub_uuid(element, "ParentPartID", part_id)
    sub_uuid(element, "PermsGranter", ZERO)
    sub(element, "PermsMask", 0)
    sub(element, "Type", item["type"])
    sub(element, "OwnerChanged", "false")


def part(parent, prim, at):
    """One SceneObjectPart in OpenSim's XML2 form. Creator and owner are
    the zero UUID, which a region replaces with its estate owner."""
    element = sub(parent, "SceneObjectPart")
    sub(element, "AllowedDrop", "false")
    sub_uuid(element, "CreatorID", ZERO)
    sub_uuid(element, "FolderID", prim["id"])
    sub(element, "InventorySerial", len(prim["items"]))
    if prim["items"]:
        inventory = sub(element, "TaskInventory")
        for item in prim["items"]:
            inventory_item(inventory, prim["id"], item)
    sub_uuid(element, "UUID", prim["id"])
    sub(element, "LocalId", 0)
    sub(element, "Name", prim["name"])
    sub(element, "Material", 3)
    sub(element, "PassTouches", "false")
    sub(element, "RegionHandle", 0)
    sub(element, "ScriptAccessPin", 0)
    sub_vector(element, "GroupPosition", at)
    sub_vector(element, "OffsetPosition", prim["offset"])
    sub_vector(element, "RotationOffset", (0, 0, 0, 1))
    sub(element, "Description", "")
    sub(element, "Text", "")
    sub(element, "LinkNum", prim["link"])
    shape = sub(element, "Shape")
    sub(shape, "TextureEntry", base64.b64encode(prim["texture_entry"]).decode())
    sub(shape, "ExtraParams", base64.b64encode(b"\0").decode())  # none
    for field, value in BOX.items():
        sub(shape, field, value)
    sub_vector(shape, "Scale", prim["size"])
    sub_vector(element, "Scale", prim["size"])
    sub(element, "CreationDate", MTIME)
    sub_uuid(element, "GroupID", ZERO)
    sub_uuid(element, "OwnerID", ZERO)
    sub_uuid(element, "LastOwnerID", ZERO)
    for mask in ("BaseMask", "OwnerMask", "NextOwnerMask"):
        sub(element, mask, ALL_PERMISSIONS)
    sub(element, "GroupMask", 0)
    sub(element, "EveryoneMask", 0)
    sub(element, "Flags", "None")
    sub(element, "PhysicsShapeType", prim["physics"])


def read_linkset(path=LINKSET):
    return json.loads(pathlib.Path(path).read_text())


def textures(linkset, folder=HERE):
    """{inventory name: (asset uuid, PNG bytes)} of the linkset's textures,
    and (asset uuid, None) for the region library's textures it names."""
    out = {}
    for name, file in linkset["inventory"]["textures"].items():
        png = (folder / file).read_bytes()
        out[name] = (content_uuid("texture", name, png), png)
    for name, asset in linkset["library_textures"].items():
        out[name] = (asset, None)
    return out


def board_files(linkset, server, debug, at, name, scripts_dir,
                textures_by_name=None):
    """{archive path: bytes}: the board object and the assets it uses;
    `textures_by_name` as textures() reads them (by default it does)."""
    files = {}
    items = []
    textures_by_name = textures_by_name or textures(linkset)
    for item_name, (asset, png) in textures_by_name.items():
        if png is None:
            continue
        files[f"assets/{asset}{ENDING[TEXTURE]}"] = jpeg2000(png)
        items.append({"name": item_name, "type": TEXTURE, "asset": asset})
    config = f"server={server}\n" + ("debug=1\n" if debug else "")
    config_name = linkset["inventory"]["notecard"]
    data = notecard(config)
    asset = content_uuid("notecard", config_name, data)
    files[f"assets/{asset}{ENDING[NOTECARD]}"] = data
    items.append({"name": config_name, "type": NOTECARD, "asset": asset})
    for file in linkset["inventory"]["scripts"]:
        data = (scripts_dir / file).read_bytes()
        script_name = file[:-len(".lsl")] if file.endswith(".lsl") else file
        asset = content_uuid("script", script_name, data)
        files[f"assets/{asset}{ENDING[SCRIPT]}"] = data
        items.append({"name": script_name, "type": SCRIPT, "asset": asset})

    where = ",".join(repr(float(v)) for v in at)
    root = linkset["root"]
    texture_of = {key: textures_by_name[key][0] for key in textures_by_name}
    prims = [{
        "name": name, "link": 1, "offset": (0, 0, 0), "size": root["size"],
        "physics": PHYSICS_PRIM,
        "texture_entry": texture_entry(
            texture_of[root["texture"]],
            {int(face): texture_of[t] for face, t in root["faces"].items()}, 1.0),
        "items": items}]
    child = linkset["child"]
    for group in linkset["children"]:
        for _ in range(group["count"]):
            prims.append({
                "name": group["name"], "link": len(prims) + 1,
                "offset": child["offset"], "size": child["size"],
                "physics": PHYSICS_NONE, "items": [],
                "texture_entry": texture_entry(texture_of[child["texture"]], {},
                                               child["alpha"])})
    for prim in prims:
        prim["id"] = name_uuid("prim", name, where, prim["link"])
        for item in prim["items"]:
            item["id"] = name_uuid("item", name, where, item["name"])

    group = ET.Element("SceneObjectGroup")
    part(sub(group, "RootPart"), prims[0], at)
    others = sub(group, "OtherParts")
    for prim in prims[1:]:
        part(sub(others, "Part"), prim, at)
    x, y, z = (round(v) for v in at)
    stem = "".join(c if c.isalnum() else "_" for c in name)
    files[f"objects/{stem}_{x:03d}-{y:03d}-{z:03d}__{prims[0]['id']}.xml"] = \
        ET.tostring(group, encoding="utf-8")
    return files


def control_file():
    """archive.xml: a single-region OAR, version 0.8 as OpenSim writes."""
    archive = ET.Element("archive", major_version="0", minor_version="8")
    info = sub(archive, "creation_info")
    sub(info, "datetime", MTIME)
    sub(info, "id", ZERO)
    sub(archive, "assets_included", "True")
    region = sub(archive, "region_info")
    sub(region, "is_megaregion", "False")
    sub(region, "size_in_meters", "256,256")
    return ET.tostring(archive, encoding="utf-8")


def write_oar(files, out):
    """A gzip'ed tar of archive.xml (first, as the loader prefers) and
    `files` in name order, every stamp MTIME."""
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.USTAR_FORMAT) as tar:
        for path, data in [("archive.xml", control_file())] + sorted(files.items()):
            info = tarfile.TarInfo(path)
            info.size = len(data)
            info.mtime = MTIME
            info.mode = 0o644
            tar.addfile(info, io.BytesIO(data))
    pathlib.Path(out).write_bytes(gzip.compress(raw.getvalue(), mtime=MTIME))


def parse_at(text):
    values = [float(v) for v in text.split(",")]
    if len(values) != 3:
        raise argparse.ArgumentTypeError("--at takes X,Y,Z")
    return values


def main(argv):
    linkset = read_linkset()
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--server", required=True,
                        help="khetd's HTTP base URL, for the notecard")
    parser.add_argument("--debug", action="store_true",
                        help="debug=1 in the notecard")
    parser.add_argument("--out", required=True, help="the OAR to write")
    parser.add_argument("--at", type=parse_at, default=[128.0, 128.0, 25.0],
                        help="the root's region position X,Y,Z (default "
                             "128,128,25)")
    parser.add_argument("--name", default=linkset["root"]["name"],
                        help="the object's name (the server's session name)")
    parser.add_argument("--scripts", type=pathlib.Path, default=HERE,
                        help="the folder holding the scripts linkset.json "
                             "lists (default: this one)")
    args = parser.parse_args(argv)
    files = board_files(linkset, args.server, args.debug, args.at, args.name,
                        args.scripts)
    write_oar(files, args.out)
    print(f"{args.out}: {args.name} at {','.join(str(v) for v in args.at)}, "
          f"{len(files) - 1} assets")


if __name__ == "__main__":
    main(sys.argv[1:])
