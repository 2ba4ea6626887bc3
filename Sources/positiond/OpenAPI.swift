/// The OpenAPI 3.1 description of positiond, served at `/openapi.json`. Tests validate every response
/// they receive against it, so it cannot drift from the routes.
enum OpenAPIDocument {
    static let json = #"""
    {
      "openapi": "3.1.0",
      "info": {
        "title": "beaconfix positiond",
        "version": "1.0.0",
        "description": "Indoor positioning from BLE beacon fingerprints. Every /v1 route needs 'Authorization: Bearer TOKEN' once an API key exists (survey key create); errors are {\"error\": {\"message\": ...}}."
      },
      "servers": [{"url": "http://127.0.0.1:8080"}],
      "security": [{"bearer": []}],
      "paths": {
        "/healthz": {
          "get": {
            "summary": "Liveness", "security": [],
            "responses": {"200": {"description": "The process is alive", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Health"}}}}}
          }
        },
        "/readyz": {
          "get": {
            "summary": "Readiness: database open and radio maps loaded", "security": [],
            "responses": {
              "200": {"description": "Ready", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Readiness"}}}},
              "503": {"description": "Not ready", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Readiness"}}}}
            }
          }
        },
        "/metrics": {
          "get": {
            "summary": "Prometheus metrics", "security": [],
            "responses": {"200": {"description": "Text exposition format", "content": {"text/plain": {"schema": {"type": "string"}}}}}
          }
        },
        "/openapi.json": {
          "get": {
            "summary": "This document", "security": [],
            "responses": {"200": {"description": "OpenAPI 3.1", "content": {"application/json": {"schema": {"type": "object"}}}}}
          }
        },
        "/v1/venues": {
          "get": {
            "summary": "List venues", "description": "Scope: locate.",
            "responses": {
              "200": {"description": "Venues", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/VenueList"}}}},
              "401": {"$ref": "#/components/responses/Unauthorized"},
              "403": {"$ref": "#/components/responses/Forbidden"}
            }
          }
        },
        "/v1/venues/{venue}": {
          "parameters": [{"$ref": "#/components/parameters/venue"}],
          "get": {
            "summary": "A venue: floors, spots, active beacons, revision", "description": "Scope: locate.",
            "responses": {
              "200": {"description": "The venue", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Venue"}}}},
              "401": {"$ref": "#/components/responses/Unauthorized"},
              "403": {"$ref": "#/components/responses/Forbidden"},
              "404": {"$ref": "#/components/responses/NotFound"}
            }
          }
        },
        "/v1/venues/{venue}/locate": {
          "parameters": [{"$ref": "#/components/parameters/venue"}],
          "post": {
            "summary": "Stateless positioning of one or more samples", "description": "Scope: locate. The samples are merged into one fingerprint (send about 5 consecutive ones).",
            "requestBody": {"$ref": "#/components/requestBodies/Samples"},
            "responses": {
              "200": {"description": "Located, or unknown with a reason", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Locate"}}}},
              "400": {"$ref": "#/components/responses/BadRequest"},
              "401": {"$ref": "#/components/responses/Unauthorized"},
              "403": {"$ref": "#/components/responses/Forbidden"},
              "404": {"$ref": "#/components/responses/NotFound"},
              "413": {"$ref": "#/components/responses/TooLarge"},
              "422": {"$ref": "#/components/responses/Unprocessable"}
            }
          }
        },
        "/v1/venues/{venue}/proximity": {
          "parameters": [{"$ref": "#/components/parameters/venue"}],
          "post": {
            "summary": "Which beacon (table) is significantly nearest", "description": "Scope: locate. Send about 5 samples.",
            "requestBody": {"$ref": "#/components/requestBodies/Samples"},
            "responses": {
              "200": {"description": "A spot, candidates, or nothing", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Proximity"}}}},
              "400": {"$ref": "#/components/responses/BadRequest"},
              "401": {"$ref": "#/components/responses/Unauthorized"},
              "403": {"$ref": "#/components/responses/Forbidden"},
              "404": {"$ref": "#/components/responses/NotFound"},
              "413": {"$ref": "#/components/responses/TooLarge"},
              "422": {"$ref": "#/components/responses/Unprocessable"}
            }
          }
        },
        "/v1/venues/{venue}/devices/{device}/samples": {
          "parameters": [{"$ref": "#/components/parameters/venue"}, {"$ref": "#/components/parameters/device"}],
          "post": {
            "summary": "Tracked positioning: add samples of a device", "description": "Scope: locate. Answers the smoothed position and the zone events the samples caused.",
            "requestBody": {"$ref": "#/components/requestBodies/Samples"},
            "responses": {
              "200": {"description": "The device's state", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Device"}}}},
              "400": {"$ref": "#/components/responses/BadRequest"},
              "401": {"$ref": "#/components/responses/Unauthorized"},
              "403": {"$ref": "#/components/responses/Forbidden"},
              "404": {"$ref": "#/components/responses/NotFound"},
              "413": {"$ref": "#/components/responses/TooLarge"},
              "422": {"$ref": "#/components/responses/Unprocessable"}
            }
          }
        },
        "/v1/venues/{venue}/devices/{device}": {
          "parameters": [{"$ref": "#/components/parameters/venue"}, {"$ref": "#/components/parameters/device"}],
          "get": {
            "summary": "The last position of a tracked device", "description": "Scope: locate.",
            "responses": {
              "200": {"description": "The device's state", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Device"}}}},
              "401": {"$ref": "#/components/responses/Unauthorized"},
              "403": {"$ref": "#/components/responses/Forbidden"},
              "404": {"$ref": "#/components/responses/NotFound"},
              "422": {"$ref": "#/components/responses/Unprocessable"}
            }
          }
        },
        "/v1/venues/{venue}/live": {
          "parameters": [
            {"$ref": "#/components/parameters/venue"},
            {"name": "device", "in": "query", "required": false, "description": "Only this device's messages (scope locate); without it the venue-wide feed needs scope admin.", "schema": {"type": "string"}, "example": "phone-1"},
            {"name": "access_token", "in": "query", "required": false, "description": "The bearer token, for clients that cannot set headers on a WebSocket request.", "schema": {"type": "string"}}
          ],
          "get": {
            "summary": "WebSocket of position updates, zone events and revisions",
            "description": "Upgrade to a WebSocket. Text messages are LiveMessage JSON objects; the first is of type 'subscribed'. A slow reader loses its oldest messages.",
            "responses": {
              "101": {"description": "Switching to the WebSocket protocol; messages follow the LiveMessage schema", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/LiveMessage"}}}},
              "401": {"$ref": "#/components/responses/Unauthorized"},
              "403": {"$ref": "#/components/responses/Forbidden"},
              "404": {"$ref": "#/components/responses/NotFound"},
              "426": {"description": "Not a WebSocket upgrade request (no 'Upgrade: websocket')", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}
            }
          }
        }
      },
      "components": {
        "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer", "description": "An API key token from 'survey key create'"}},
        "parameters": {
          "venue": {"name": "venue", "in": "path", "required": true, "schema": {"type": "string"}, "example": "demo-hall"},
          "device": {"name": "device", "in": "path", "required": true, "schema": {"type": "string", "minLength": 1, "maxLength": 128}, "example": "phone-1"}
        },
        "requestBodies": {
          "Samples": {
            "required": true,
            "content": {"application/json": {
              "schema": {"$ref": "#/components/schemas/SamplesRequest"},
              "example": {"samples": [{"beacons": [{"major": 1, "minor": 4, "rssi": -89, "uuid": "B9407F30-F5F8-466E-AFF9-25556B57FE6D"}, {"major": 1, "minor": 3, "rssi": -87, "uuid": "B9407F30-F5F8-466E-AFF9-25556B57FE6D"}, {"major": 1, "minor": 2, "rssi": -74, "uuid": "B9407F30-F5F8-466E-AFF9-25556B57FE6D"}, {"major": 1, "minor": 7, "rssi": -92, "uuid": "B9407F30-F5F8-466E-AFF9-25556B57FE6D"}, {"major": 1, "minor": 1, "rssi": -79, "uuid": "B9407F30-F5F8-466E-AFF9-25556B57FE6D"}, {"major": 1, "minor": 5, "rssi": -88, "uuid": "B9407F30-F5F8-466E-AFF9-25556B57FE6D"}], "device": "pixel-7", "t": 1795005990}, {"beacons": [{"major": 1, "minor": 3, "rssi": -91, "uuid": "B9407F30-F5F8-466E-AFF9-25556B57FE6D"}, {"major": 1, "minor": 10, "rssi": -93, "uuid": "B9407F30-F5F8-466E-AFF9-25556B57FE6D"}, {"major": 2, "minor": 11, "rssi": -88, "uuid": "B9407F30-F5F8-466E-AFF9-25556B57FE6D"}, {"major": 1, "minor": 1, "rssi": -75, "uuid": "B9407F30-F5F8-466E-AFF9-25556B57FE6D"}, {"major": 1, "minor": 2, "rssi": -73, "uuid": "B9407F30-F5F8-466E-AFF9-25556B57FE6D"}, {"major": 1, "minor": 5, "rssi": -90, "uuid": "B9407F30-F5F8-466E-AFF9-25556B57FE6D"}, {"major": 1, "minor": 4, "rssi": -87, "uuid": "B9407F30-F5F8-466E-AFF9-25556B57FE6D"}], "device": "pixel-7", "t": 1795005991}, {"beacons": [{"major": 1, "minor": 7, "rssi": -94, "uuid": "B9407F30-F5F8-466E-AFF9-25556B57FE6D"}, {"major": 1, "minor": 1, "rssi": -76, "uuid": "B9407F30-F5F8-466E-AFF9-25556B57FE6D"}, {"major": 1, "minor": 5, "rssi": -87, "uuid": "B9407F30-F5F8-466E-AFF9-25556B57FE6D"}, {"major": 2, "minor": 11, "rssi": -89, "uuid": "B9407F30-F5F8-466E-AFF9-25556B57FE6D"}, {"major": 1, "minor": 4, "rssi": -87, "uuid": "B9407F30-F5F8-466E-AFF9-25556B57FE6D"}, {"major": 1, "minor": 2, "rssi": -65, "uuid": "B9407F30-F5F8-466E-AFF9-25556B57FE6D"}], "device": "pixel-7", "t": 1795005992}, {"beacons": [{"major": 1, "minor": 2, "rssi": -73, "uuid": "B9407F30-F5F8-466E-AFF9-25556B57FE6D"}, {"major": 1, "minor": 7, "rssi": -93, "uuid": "B9407F30-F5F8-466E-AFF9-25556B57FE6D"}, {"major": 1, "minor": 3, "rssi": -90, "uuid": "B9407F30-F5F8-466E-AFF9-25556B57FE6D"}, {"major": 2, "minor": 11, "rssi": -93, "uuid": "B9407F30-F5F8-466E-AFF9-25556B57FE6D"}, {"major": 1, "minor": 1, "rssi": -78, "uuid": "B9407F30-F5F8-466E-AFF9-25556B57FE6D"}, {"major": 1, "minor": 4, "rssi": -90, "uuid": "B9407F30-F5F8-466E-AFF9-25556B57FE6D"}, {"major": 1, "minor": 5, "rssi": -90, "uuid": "B9407F30-F5F8-466E-AFF9-25556B57FE6D"}], "device": "pixel-7", "t": 1795005993}, {"beacons": [{"major": 1, "minor": 7, "rssi": -95, "uuid": "B9407F30-F5F8-466E-AFF9-25556B57FE6D"}, {"major": 1, "minor": 5, "rssi": -89, "uuid": "B9407F30-F5F8-466E-AFF9-25556B57FE6D"}, {"major": 2, "minor": 14, "rssi": -99, "uuid": "B9407F30-F5F8-466E-AFF9-25556B57FE6D"}, {"major": 1, "minor": 1, "rssi": -80, "uuid": "B9407F30-F5F8-466E-AFF9-25556B57FE6D"}, {"major": 2, "minor": 11, "rssi": -89, "uuid": "B9407F30-F5F8-466E-AFF9-25556B57FE6D"}, {"major": 1, "minor": 4, "rssi": -85, "uuid": "B9407F30-F5F8-466E-AFF9-25556B57FE6D"}, {"major": 2, "minor": 13, "rssi": -94, "uuid": "B9407F30-F5F8-466E-AFF9-25556B57FE6D"}, {"major": 1, "minor": 2, "rssi": -77, "uuid": "B9407F30-F5F8-466E-AFF9-25556B57FE6D"}], "device": "pixel-7", "t": 1795005994}]}
            }}
          }
        },
        "responses": {
          "BadRequest": {"description": "Malformed JSON", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}},
          "Unauthorized": {"description": "Missing, unknown or revoked API key", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}},
          "Forbidden": {"description": "The key's scope does not allow this route", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}},
          "NotFound": {"description": "Unknown venue or device", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}},
          "TooLarge": {"description": "The body is over the size limit", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}},
          "Unprocessable": {"description": "No sample, too many samples or readings, an invalid beacon or RSSI, or no known beacon", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}
        },
        "schemas": {
          "Error": {
            "type": "object", "required": ["error"], "additionalProperties": false,
            "properties": {"error": {"type": "object", "required": ["message"], "additionalProperties": false, "properties": {"message": {"type": "string"}}}}
          },
          "Health": {"type": "object", "required": ["status"], "additionalProperties": false, "properties": {"status": {"type": "string", "enum": ["alive"]}}},
          "Readiness": {
            "type": "object", "required": ["status", "venues"], "additionalProperties": false,
            "properties": {
              "status": {"type": "string", "enum": ["ready", "loading", "database unavailable"]},
              "venues": {"type": "object", "description": "Revision served, by venue", "additionalProperties": {"type": "integer"}}
            }
          },
          "SamplesRequest": {
            "type": "object", "required": ["samples"],
            "properties": {
              "samples": {"type": "array", "minItems": 1, "items": {"$ref": "#/components/schemas/SampleInput"}}
            }
          },
          "SampleInput": {
            "type": "object", "required": ["beacons"],
            "description": "A scan-log line without ground truth (extra fields are ignored).",
            "properties": {
              "t": {"type": "number", "minimum": 0, "description": "Seconds since the Unix epoch (not milliseconds); at most clock.future.seconds (300 s) ahead of the server's clock, else 422; the server's clock when absent"},
              "device": {"type": "string"},
              "beacons": {"type": "array", "items": {"$ref": "#/components/schemas/BeaconReading"}}
            }
          },
          "BeaconReading": {
            "type": "object", "required": ["uuid", "major", "minor", "rssi"],
            "properties": {
              "uuid": {"type": "string", "format": "uuid"},
              "major": {"type": "integer", "minimum": 0, "maximum": 65535},
              "minor": {"type": "integer", "minimum": 0, "maximum": 65535},
              "rssi": {"type": "number", "minimum": -127, "maximum": 20, "description": "dBm as the radio reports it, -127 to +20 (anything else is a 422); 0 means unknown and is dropped; positioning uses -110 to -1 and drops the rest"}
            }
          },
          "VenueSummary": {
            "type": "object", "additionalProperties": false,
            "required": ["id", "name", "revision", "floors", "active_beacons", "spots", "fingerprints", "updated_at"],
            "properties": {
              "id": {"type": "string"}, "name": {"type": "string"}, "revision": {"type": "integer"},
              "floors": {"type": "integer"}, "active_beacons": {"type": "integer"}, "spots": {"type": "integer"},
              "fingerprints": {"type": "integer"}, "updated_at": {"type": "string", "format": "date-time"}
            }
          },
          "VenueList": {
            "type": "object", "required": ["venues"], "additionalProperties": false,
            "properties": {"venues": {"type": "array", "items": {"$ref": "#/components/schemas/VenueSummary"}}}
          },
          "Floor": {
            "type": "object", "required": ["level", "name"], "additionalProperties": false,
            "properties": {"level": {"type": "integer"}, "name": {"type": "string"}}
          },
          "Spot": {
            "type": "object", "required": ["name", "x", "y", "floor"], "additionalProperties": false,
            "properties": {"name": {"type": "string"}, "x": {"type": "number"}, "y": {"type": "number"}, "floor": {"type": "integer"}, "zone": {"type": "string"}}
          },
          "Beacon": {
            "type": "object", "required": ["id", "uuid", "major", "minor"], "additionalProperties": false,
            "properties": {
              "id": {"type": "string", "description": "UUID:major:minor"}, "uuid": {"type": "string", "format": "uuid"},
              "major": {"type": "integer"}, "minor": {"type": "integer"}, "label": {"type": "string"},
              "x": {"type": "number"}, "y": {"type": "number"}, "floor": {"type": "integer"}
            }
          },
          "Venue": {
            "type": "object", "additionalProperties": false,
            "required": ["id", "name", "revision", "floors", "spots", "beacons", "fingerprints"],
            "properties": {
              "id": {"type": "string"}, "name": {"type": "string"}, "revision": {"type": "integer"},
              "floors": {"type": "array", "items": {"$ref": "#/components/schemas/Floor"}},
              "spots": {"type": "array", "items": {"$ref": "#/components/schemas/Spot"}},
              "beacons": {"type": "array", "items": {"$ref": "#/components/schemas/Beacon"}},
              "fingerprints": {"type": "integer"}
            }
          },
          "Position": {
            "type": "object", "required": ["x", "y", "floor", "accuracy_m", "spot"], "additionalProperties": false,
            "properties": {
              "x": {"type": "number"}, "y": {"type": "number"}, "floor": {"type": "integer"},
              "accuracy_m": {"type": "number", "minimum": 0, "description": "Radius in metres within which the device probably is"},
              "spot": {"type": "string", "description": "The surveyed spot nearest the position"},
              "zone": {"type": "string"}
            }
          },
          "Candidate": {
            "type": "object", "required": ["spot", "floor", "distance"], "additionalProperties": false,
            "properties": {"spot": {"type": "string"}, "floor": {"type": "integer"}, "zone": {"type": "string"}, "distance": {"type": "number", "description": "Signal-space distance; smaller is nearer"}}
          },
          "Reason": {
            "type": "object", "required": ["code", "message"], "additionalProperties": false,
            "properties": {"code": {"type": "string", "enum": ["no_known_beacon", "too_few_beacons", "no_common_beacon", "too_far"]}, "message": {"type": "string"}}
          },
          "LocationReport": {
            "type": "object", "required": ["status", "candidates", "matched_beacons", "unmapped_beacons"], "additionalProperties": false,
            "properties": {
              "status": {"type": "string", "enum": ["located", "unknown"]},
              "position": {"$ref": "#/components/schemas/Position"},
              "reason": {"$ref": "#/components/schemas/Reason"},
              "candidates": {"type": "array", "items": {"$ref": "#/components/schemas/Candidate"}},
              "matched_beacons": {"type": "integer"},
              "unmapped_beacons": {"type": "array", "items": {"type": "string"}},
              "revision": {"type": "integer"}
            }
          },
          "Locate": {
            "type": "object", "required": ["venue", "status", "candidates", "matched_beacons", "unmapped_beacons", "revision"], "additionalProperties": false,
            "properties": {
              "venue": {"type": "string"},
              "status": {"type": "string", "enum": ["located", "unknown"]},
              "position": {"$ref": "#/components/schemas/Position"},
              "reason": {"$ref": "#/components/schemas/Reason"},
              "candidates": {"type": "array", "items": {"$ref": "#/components/schemas/Candidate"}},
              "matched_beacons": {"type": "integer"},
              "unmapped_beacons": {"type": "array", "items": {"type": "string"}},
              "revision": {"type": "integer", "description": "The venue revision the answer was computed with"}
            }
          },
          "ZoneEvent": {
            "type": "object", "required": ["kind", "zone", "time"], "additionalProperties": false,
            "properties": {"kind": {"type": "string", "enum": ["enter", "exit"]}, "zone": {"type": "string"}, "time": {"type": "number"}}
          },
          "Device": {
            "type": "object", "additionalProperties": false,
            "required": ["venue", "device", "revision", "time", "status", "events", "raw", "stuck_beacons", "window_samples"],
            "properties": {
              "venue": {"type": "string"}, "device": {"type": "string"}, "revision": {"type": "integer"},
              "time": {"type": "number"},
              "status": {"type": "string", "enum": ["located", "unknown"]},
              "position": {"$ref": "#/components/schemas/Position"},
              "zone": {"type": "string", "description": "The zone the device is in, after hysteresis"},
              "events": {"type": "array", "items": {"$ref": "#/components/schemas/ZoneEvent"}},
              "raw": {"$ref": "#/components/schemas/LocationReport"},
              "stuck_beacons": {"type": "array", "items": {"type": "string"}},
              "window_samples": {"type": "integer"}
            }
          },
          "ProximityCandidate": {
            "type": "object", "required": ["beacon", "mean_rssi", "samples", "strongest_in"], "additionalProperties": false,
            "properties": {"beacon": {"type": "string"}, "spot": {"type": "string"}, "mean_rssi": {"type": "number"}, "samples": {"type": "integer"}, "strongest_in": {"type": "integer"}}
          },
          "Proximity": {
            "type": "object", "required": ["decision", "candidates"], "additionalProperties": false,
            "properties": {
              "decision": {"type": "string", "enum": ["nearest", "undecided", "nothing"]},
              "spot": {"$ref": "#/components/schemas/Spot"},
              "beacon": {"type": "string"},
              "margin_db": {"type": "number"},
              "reason": {"type": "string"},
              "candidates": {"type": "array", "items": {"$ref": "#/components/schemas/ProximityCandidate"}}
            }
          },
          "LiveMessage": {
            "oneOf": [
              {"type": "object", "required": ["type", "venue", "revision"], "additionalProperties": false,
               "properties": {"type": {"const": "subscribed"}, "venue": {"type": "string"}, "device": {"type": "string"}, "revision": {"type": "integer"}}},
              {"type": "object", "required": ["type", "venue", "device", "time", "position"], "additionalProperties": false,
               "properties": {"type": {"const": "position"}, "venue": {"type": "string"}, "device": {"type": "string"}, "time": {"type": "number"}, "position": {"$ref": "#/components/schemas/Position"}, "zone": {"type": "string"}}},
              {"type": "object", "required": ["type", "venue", "device", "event", "zone", "time"], "additionalProperties": false,
               "properties": {"type": {"const": "zone"}, "venue": {"type": "string"}, "device": {"type": "string"}, "event": {"type": "string", "enum": ["enter", "exit"]}, "zone": {"type": "string"}, "time": {"type": "number"}}},
              {"type": "object", "required": ["type", "venue", "revision"], "additionalProperties": false,
               "properties": {"type": {"const": "revision"}, "venue": {"type": "string"}, "revision": {"type": "integer"}}}
            ]
          }
        }
      }
    }
    """#
}
