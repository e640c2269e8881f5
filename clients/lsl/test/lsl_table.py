# Copyright 2026 The khet Authors
# SPDX-License-Identifier: Apache-2.0

"""The LSL library the board's scripts may use: functions, constants, events.

Written from the language's public reference (the Second Life wiki's
function, constant and event pages): each function's return type ("" for
none) and its parameters' types in order; each constant's type and value;
each event's parameter types. lsl_check.py refuses any name not here, so a
script using something new must add it here, from the reference, first.

The scripts must also run on OpenSimulator 0.9.2.2 (YEngine), which lacks
some of Second Life's newer library. NOT_IN_OPENSIM names what of this
table it lacks; lsl_check.py reports any use of those. Found by comparing
the table with OpenSimulator 0.9.2.2's ILSL_Api.cs (its functions) and
LSL_Constants.cs (its constants), OpenSim/Region/ScriptEngine/Shared/Api/;
every other name here is in both. Checking a name added here means looking
it up there too. The HTTP-in names (llRequestURL, llRequestSecureURL,
llReleaseURL, llHTTPResponse, llGetHTTPHeader, llGetFreeURLs, the
http_request event, URL_REQUEST_GRANTED and URL_REQUEST_DENIED) and the
hashes (llMD5String, llSHA1String, llSHA256String) were checked in
0.9.2.2's built assemblies (OpenSim.Region.ScriptEngine.Shared.Api.dll and
.Api.Runtime.dll): all there. It has no llHMAC and no llComputeHash.
"""

I, F, S, K, V, R, L = ("integer", "float", "string", "key", "vector",
                       "rotation", "list")

FUNCTIONS = {
    # strings
    "llGetSubString": (S, [S, I, I]),
    "llSubStringIndex": (I, [S, S]),
    "llStringLength": (I, [S]),
    "llToUpper": (S, [S]),
    "llToLower": (S, [S]),
    "llStringTrim": (S, [S, I]),
    # lists
    "llGetListLength": (I, [L]),
    "llList2String": (S, [L, I]),
    "llList2Integer": (I, [L, I]),
    "llList2Float": (F, [L, I]),
    "llList2Key": (K, [L, I]),
    "llList2Vector": (V, [L, I]),
    "llList2List": (L, [L, I, I]),
    "llList2ListStrided": (L, [L, I, I, I]),
    "llListFindList": (I, [L, L]),
    "llDeleteSubList": (L, [L, I, I]),
    "llListReplaceList": (L, [L, L, I, I]),
    "llDumpList2String": (S, [L, S]),
    "llParseString2List": (L, [S, L, L]),
    "llParseStringKeepNulls": (L, [S, L, L]),
    # JSON
    "llJsonGetValue": (S, [S, L]),
    "llList2Json": (S, [S, L]),
    # maths
    "llFabs": (F, [F]),
    "llFloor": (I, [F]),
    "llRound": (I, [F]),
    "llPow": (F, [F, F]),
    "llFrand": (F, [F]),
    "llVecMag": (F, [V]),
    "llEuler2Rot": (R, [V]),
    # time and the script
    "llGetTime": (F, []),
    "llSetTimerEvent": ("", [F]),
    "llResetScript": ("", []),
    "llGetUsedMemory": (I, []),
    "llGenerateKey": (K, []),
    # the object
    "llGetOwner": (K, []),
    "llGetKey": (K, []),
    "llGetObjectName": (S, []),
    "llGetEnv": (S, [S]),
    "llGetObjectDesc": (S, []),
    "llGetObjectDetails": (L, [K, L]),
    "llSameGroup": (I, [K]),
    "llKey2Name": (S, [K]),
    "llGetScale": (V, []),
    "llScaleByFactor": (I, [F]),
    "llGetNumberOfPrims": (I, []),
    "llGetObjectPrimCount": (I, [K]),
    "llGetLinkName": (S, [I]),
    "llSetLinkPrimitiveParamsFast": ("", [I, L]),
    "llGetLinkPrimitiveParams": (L, [I, L]),
    "llMessageLinked": ("", [I, I, S, K]),
    "llLinkParticleSystem": ("", [I, L]),
    "llSetText": ("", [S, V, F]),
    "llTriggerSound": ("", [S, F]),
    "llGetInventoryType": (I, [S]),
    "llGetNotecardLine": (K, [S, I]),
    # touches
    "llDetectedKey": (K, [I]),
    "llDetectedLinkNumber": (I, [I]),
    "llDetectedTouchFace": (I, [I]),
    "llDetectedTouchST": (V, [I]),
    # chat and dialogs
    "llSay": ("", [I, S]),
    "llWhisper": ("", [I, S]),
    "llOwnerSay": ("", [S]),
    "llRegionSayTo": ("", [K, I, S]),
    "llDialog": ("", [K, S, L, I]),
    "llTextBox": ("", [K, S, I]),
    "llListen": (I, [I, S, K, S]),
    # HTTP
    "llHTTPRequest": (K, [S, L, S]),
    # HTTP-in: a URL of the object's own, and the requests made to it
    "llRequestURL": (K, []),
    "llRequestSecureURL": (K, []),
    "llReleaseURL": ("", [S]),
    "llGetFreeURLs": (I, []),
    "llHTTPResponse": ("", [K, I, S]),
    "llGetHTTPHeader": (S, [K, S]),
    # hashes (lowercase hex of the UTF-8 bytes; llMD5String's nonce is
    # appended as ":<nonce>")
    "llMD5String": (S, [S, I]),
    "llSHA1String": (S, [S]),
    "llSHA256String": (S, [S]),
    # Second Life only (NOT_IN_OPENSIM): linkset data, and newer list,
    # notecard and hash functions
    "llLinksetDataWrite": (I, [S, S]),
    "llLinksetDataWriteProtected": (I, [S, S, S]),
    "llLinksetDataRead": (S, [S]),
    "llLinksetDataReadProtected": (S, [S, S]),
    "llLinksetDataDelete": (I, [S]),
    "llLinksetDataDeleteProtected": (I, [S, S]),
    "llLinksetDataDeleteFound": (L, [S, S]),
    "llLinksetDataReset": ("", []),
    "llLinksetDataAvailable": (I, []),
    "llLinksetDataCountKeys": (I, []),
    "llLinksetDataCountFound": (I, [S]),
    "llLinksetDataListKeys": (L, [I, I]),
    "llLinksetDataFindKeys": (L, [S, I, I]),
    "llList2ListSlice": (L, [L, I, I, I, I]),
    "llListSortStrided": (L, [L, I, I, I]),
    "llGetNotecardLineSync": (S, [S, I]),
    "llComputeHash": (S, [S, S]),
    "llHMAC": (S, [S, S, S]),
    "llGetStartString": (S, []),
}

_JSON = {"JSON_INVALID": "\ufdd0", "JSON_OBJECT": "\ufdd1",
         "JSON_ARRAY": "\ufdd2", "JSON_NUMBER": "\ufdd3",
         "JSON_STRING": "\ufdd4", "JSON_NULL": "\ufdd5",
         "JSON_TRUE": "\ufdd6", "JSON_FALSE": "\ufdd7"}

CONSTANTS = {
    "TRUE": (I, 1), "FALSE": (I, 0),
    "PI": (F, 3.14159265), "PI_BY_TWO": (F, 1.57079633),
    "NULL_KEY": (K, "00000000-0000-0000-0000-000000000000"),
    "ZERO_VECTOR": (V, (0.0, 0.0, 0.0)),
    "ZERO_ROTATION": (R, (0.0, 0.0, 0.0, 1.0)),
    "EOF": (S, "\n\n\n"),
    "ALL_SIDES": (I, -1),
    "LINK_ROOT": (I, 1), "LINK_SET": (I, -1), "LINK_THIS": (I, -4),
    "STRING_TRIM": (I, 3), "STRING_TRIM_HEAD": (I, 1),
    "STRING_TRIM_TAIL": (I, 2),
    "HTTP_METHOD": (I, 0), "HTTP_MIMETYPE": (I, 1),
    "HTTP_BODY_MAXLENGTH": (I, 2), "HTTP_VERIFY_CERT": (I, 3),
    "HTTP_CUSTOM_HEADER": (I, 5),
    "URL_REQUEST_GRANTED": (S, "URL_REQUEST_GRANTED"),
    "URL_REQUEST_DENIED": (S, "URL_REQUEST_DENIED"),
    "CHANGED_INVENTORY": (I, 0x1), "CHANGED_LINK": (I, 0x20),
    "CHANGED_OWNER": (I, 0x80), "CHANGED_REGION_START": (I, 0x400),
    "INVENTORY_SOUND": (I, 1), "INVENTORY_NOTECARD": (I, 7),
    "OBJECT_GROUP": (I, 7),
    "PRIM_SIZE": (I, 7), "PRIM_TEXTURE": (I, 17), "PRIM_COLOR": (I, 18),
    "PRIM_FULLBRIGHT": (I, 20), "PRIM_GLOW": (I, 25),
    "PRIM_ROT_LOCAL": (I, 29), "PRIM_PHYSICS_SHAPE_TYPE": (I, 30),
    "PRIM_POS_LOCAL": (I, 33), "PRIM_LINK_TARGET": (I, 34),
    "PRIM_PHYSICS_SHAPE_PRIM": (I, 0), "PRIM_PHYSICS_SHAPE_NONE": (I, 1),
    "PRIM_PHYSICS_SHAPE_CONVEX": (I, 2),
    "PSYS_PART_FLAGS": (I, 0), "PSYS_PART_START_COLOR": (I, 1),
    "PSYS_PART_END_COLOR": (I, 3), "PSYS_PART_START_SCALE": (I, 5),
    "PSYS_PART_MAX_AGE": (I, 7), "PSYS_SRC_PATTERN": (I, 9),
    "PSYS_SRC_BURST_RATE": (I, 13), "PSYS_SRC_BURST_PART_COUNT": (I, 15),
    "PSYS_SRC_BURST_SPEED_MIN": (I, 17), "PSYS_SRC_BURST_SPEED_MAX": (I, 18),
    "PSYS_SRC_MAX_AGE": (I, 19),
    "PSYS_PART_INTERP_COLOR_MASK": (I, 0x1),
    "PSYS_PART_EMISSIVE_MASK": (I, 0x100),
    "PSYS_SRC_PATTERN_EXPLODE": (I, 0x2),
    **{name: (S, value) for name, value in _JSON.items()},
    # Second Life only (NOT_IN_OPENSIM): linkset data
    "LINKSETDATA_RESET": (I, 0), "LINKSETDATA_UPDATE": (I, 1),
    "LINKSETDATA_DELETE": (I, 2), "LINKSETDATA_MULTIDELETE": (I, 3),
    "LINKSETDATA_OK": (I, 0), "LINKSETDATA_EMEMORY": (I, 1),
    "LINKSETDATA_ENOKEY": (I, 2), "LINKSETDATA_EPROTECTED": (I, 3),
    "LINKSETDATA_NOTFOUND": (I, 4), "LINKSETDATA_NOUPDATE": (I, 5),
}

EVENTS = {
    "state_entry": [],
    "state_exit": [],
    "on_rez": [I],
    "changed": [I],
    "timer": [],
    "touch_start": [I],
    "touch_end": [I],
    "listen": [I, S, K, S],
    "dataserver": [K, S],
    "http_response": [K, I, L, S],
    "http_request": [K, S, S],
    "link_message": [I, I, S, K],
    "linkset_data": [I, S, S],       # Second Life only (NOT_IN_OPENSIM)
}

# What of the tables above OpenSimulator 0.9.2.2 lacks: a script using any
# of it does not compile there.
NOT_IN_OPENSIM = {
    name for name in list(FUNCTIONS) + list(CONSTANTS) + list(EVENTS)
    if name.startswith(("llLinksetData", "LINKSETDATA_", "linkset_data"))
} | {"llList2ListSlice", "llListSortStrided", "llGetNotecardLineSync",
     "llComputeHash", "llHMAC", "llGetStartString"}
