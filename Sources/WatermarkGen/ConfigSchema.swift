// docs/config.schema.json: JSON Schema (2020-12) of a layers config file. The layer fields
// come from the property table; keyframes, repeat and alternate from the model's limits.

import WatermarkModel

enum ConfigSchema {
    static func text() -> String {
        let seconds = WatermarkProperties.start.definition.userRange ?? 0...WatermarkProperties.maxSeconds
        var fields: [(String, String)] = WatermarkProperties.layer.map { ($0.name, field($0)) }
        fields.append(
            (
                "keyframes",
                ##"{ "type": "array", "maxItems": \##(LayerConfig.maxKeyframes), "items": { "$ref": "#/$defs/keyframe" } }"##
            ))
        fields.append(
            (
                "repeat",
                #"{ "description": "how many times the keyframes play in all (CSS animation-iteration-count)", "oneOf": [ { "type": "integer", "minimum": 1, "maximum": \#(KeyframeTrack.maxRepeat) }, { "const": "infinite" } ], "default": 1 }"#
            ))
        fields.append(
            (
                "alternate",
                #"{ "type": "boolean", "default": false, "description": "every second play runs backwards" }"#
            ))
        fields.append(
            (
                "bind",
                ##"{ "type": "object", "description": "fields driven by a variable or a data field, mapped linearly from a range to a range and clamped at its ends", "additionalProperties": false, "properties": { \##(AnimatedProperty.allCases.map { "\"\($0.rawValue)\": { \"$ref\": \"#/$defs/binding\" }" }.joined(separator: ", ")) } }"##
            ))
        fields += hidingFields()
        var keyframe: [(String, String)] = [("time", numberSchema(seconds))]
        for p in AnimatedProperty.allCases {
            // A mask's x and y keyframes are offsets (-1…1).
            if p == .x || p == .y {
                keyframe.append((p.rawValue, numberSchema(-1...1)))
            } else if let r = p.range {
                keyframe.append((p.rawValue, numberSchema(r)))
            }
        }
        keyframe.append(("easing", ##"{ "$ref": "#/$defs/easing" }"##))
        let colorNames = ARGBColor.names.joined(separator: ", ")
        return """
            { "$comment": "\(Generated.notice)",
              "$schema": "https://json-schema.org/draft/2020-12/schema",
              "$id": "https://github.com/gst-watermark/gst-watermark/docs/config.schema.json",
              "title": "gst-watermark layers",
              "description": "The file given to the watermark element's `config` property or to `gst-watermark --config`.",
              "type": "object",
              "required": ["layers"],
              "additionalProperties": false,
              "properties": {
                "layers": {
                  "type": "array",
                  "maxItems": \(LayerConfig.maxLayers),
                  "description": "Drawn in order: later layers on top.",
                  "items": { "$ref": "#/$defs/layer" }
                },
                "variables": {
                  "type": "object",
                  "description": "Values {var:NAME} shows in the texts, unless the element's variables property (the CLI's --var, PATCH /api/variables) sets the same name.",
                  "propertyNames": { "pattern": "^[A-Za-z_][A-Za-z0-9_.-]{0,63}$" },
                  "additionalProperties": { "type": ["number", "string", "boolean", "null"] }
                },
                "data": {
                  "description": "The timed data {data:FIELD} shows and data: bindings follow (a CSV file with a header row, or JSON Lines), unless the element's data-file property (the CLI's --data) names one. A relative path is relative to this file.",
                  "oneOf": [
                    { "type": "string", "minLength": 1 },
                    {
                      "type": "object",
                      "required": ["file"],
                      "additionalProperties": false,
                      "properties": {
                        "file": { "type": "string", "minLength": 1 },
                        "offset": { "type": "number", "default": 0, "description": "seconds added to the file's times" },
                        "time": { "type": "string", "minLength": 1, "description": "the time column (default: the first named time, t, timestamp, seconds or elapsed)" },
                        "step": { "type": "array", "items": { "type": "string", "minLength": 1 }, "description": "fields held from one row to the next instead of interpolated" }
                      }
                    }
                  ]
                }
              },
              "$defs": {
                "color": {
                  "type": "string",
                  "description": "#RRGGBB, #RRGGBBAA, 0xAARRGGBB or a name (\(colorNames))"
                },
                "easing": {
                  "type": "string",
                  "pattern": "^(linear|ease-in|ease-out|ease-in-out|step|cubic-bezier\\\\(\\\\s*[-0-9.eE+]+\\\\s*,\\\\s*[-0-9.eE+]+\\\\s*,\\\\s*[-0-9.eE+]+\\\\s*,\\\\s*[-0-9.eE+]+\\\\s*\\\\))$",
                  "description": "Easing of the segment that starts at this keyframe; cubic-bezier x1 and x2 must be within 0..1."
                },
                "binding": {
                  "type": "object",
                  "required": ["value"],
                  "additionalProperties": false,
                  "properties": {
                    "value": { "type": "string", "pattern": "^(var:[A-Za-z_][A-Za-z0-9_.-]{0,63}|data:[^:{}]+)$", "description": "var:NAME or data:FIELD" },
                    "from": { "$ref": "#/$defs/range", "description": "the value's range (default: to's, or the value as it is)" },
                    "to": { "$ref": "#/$defs/range", "description": "the field's range (default: from's)" }
                  }
                },
                "range": { "type": "array", "items": { "type": "number" }, "minItems": 2, "maxItems": 2 },
                "keyframe": {
                  "type": "object",
                  "required": ["time"],
                  "additionalProperties": false,
                  "properties": {
            \(members(keyframe, indent: "        "))
                  }
                },
                "layer": {
                  "type": "object",
                  "additionalProperties": false,
                  "anyOf": [ { "required": ["image"] }, { "required": ["text"] }, { "required": ["text-file"] }, { "required": ["mask"] }, { "required": ["follow"] } ],
                  "properties": {
            \(members(fields, indent: "        "))
                  }
                }
              }
            }

            """
    }

    /// The fields of mask and follow layers (see docs/masks.md).
    static func hidingFields() -> [(String, String)] {
        let p = WatermarkProperties.self
        func number(_ d: PropertyDefinition, _ description: String) -> String {
            let r = d.userRange ?? 0...1
            return
                #"{ "type": "number", "minimum": \#(DocText.number(r.lowerBound)), "maximum": \#(DocText.number(r.upperBound)), "description": \#(JSONText.quoted(description)) }"#
        }
        let fills = (p.roiFillChoice.nicks).map(JSONText.quoted).joined(separator: ", ")
        return [
            (
                "mask",
                #"{ "description": "a mask layer: regions hidden in every frame it is shown on, in fractions of the frame (x/y keyframes move it: offsets added to every point); opacity and fades do not apply", "oneOf": [ { "type": "array", "items": { "type": "number" }, "minItems": 4, "maxItems": 4, "description": "a rectangle [x, y, width, height]" }, { "type": "array", "minItems": 3, "items": { "type": "array", "items": { "type": "number" }, "minItems": 2, "maxItems": 2 }, "description": "a polygon [[x1, y1], [x2, y2], [x3, y3], …]" }, { "type": "string", "minLength": 1, "description": "the mask property's text" } ] }"#
            ),
            (
                "follow",
                #"{ "const": "roi", "description": "a follow layer: drawn for each region of interest (GstVideoRegionOfInterestMeta) of each frame" }"#
            ),
            (
                "fill",
                #"{ "enum": [\#(fills)], "description": "how a mask (default solid) or a follow layer (default none) hides its regions; a mask takes solid, pixelate or blur" }"#
            ),
            (
                "cell",
                number(p.maskCell.definition, "a pixelated fill's cell, a fraction of the frame width (default 0.025)")
            ),
            (
                "radius",
                number(p.maskRadius.definition, "a blurred fill's σ, a fraction of the frame width (default 0.02)")
            ),
            (
                "roi-types",
                #"{ "oneOf": [ { "type": "array", "items": { "type": "string", "minLength": 1 } }, { "type": "string", "minLength": 1 } ], "description": "the region types a follow layer draws (roi_type names); absent: all" }"#
            ),
            ("min-confidence", number(p.roiMinConfidence.definition, "regions below this confidence are not drawn")),
            ("grow", number(p.roiGrow.definition, "each region grown by this fraction of its size on every side")),
            (
                "box-color",
                ##"{ "$ref": "#/$defs/color", "description": "a follow layer's outline colour (alpha 0: none)" }"##
            ),
            (
                "box-width",
                number(
                    p.roiBoxWidth.definition, "a follow layer's outline, a fraction of the frame height (default 0.004)"
                )
            ),
        ]
    }

    static func members(_ m: [(String, String)], indent: String) -> String {
        m.map { "\(indent)\(JSONText.quoted($0.0)): \($0.1)" }.joined(separator: ",\n")
    }

    static func numberSchema(_ r: ClosedRange<Double>) -> String {
        #"{ "type": "number", "minimum": \#(DocText.number(r.lowerBound)), "maximum": \#(DocText.number(r.upperBound)) }"#
    }

    /// One layer field: type, range, default (where a file may give it) and description.
    static func field(_ p: PropertyDefinition) -> String {
        var parts: [String] = []
        switch p.type {
        case .string:
            parts.append(#""type": "string""#)
            if !p.allowsEmpty { parts.append(#""minLength": 1"#) }
        case .double, .uint:
            let r = p.userRange ?? 0...0
            if case .uint = p.type { parts.append(#""type": "integer""#) } else { parts.append(#""type": "number""#) }
            parts.append(#""minimum": \#(DocText.number(r.lowerBound))"#)
            parts.append(#""maximum": \#(DocText.number(r.upperBound))"#)
        case .color: parts.append(##""$ref": "#/$defs/color""##)
        case .bool: parts.append(#""type": "boolean""#)
        case .choice(let c): parts.append(#""enum": [\#(c.nicks.map(JSONText.quoted).joined(separator: ", "))]"#)
        case .counter: parts.append(#""type": "integer""#)
        }
        // A default only where a file can write it (x, y and end are unset by default).
        switch p.defaultValue {
        case .string(let s?): parts.append(#""default": \#(JSONText.quoted(s))"#)
        case .double(let v) where p.userRange?.contains(v) ?? true: parts.append(#""default": \#(DocText.number(v))"#)
        case .uint(let v): parts.append(#""default": \#(v)"#)
        case .color(let c):
            parts.append(#""default": \#(JSONText.quoted(ARGBColor.name(of: c) ?? c.hexText))"#)
        case .bool(let b): parts.append(#""default": \#(b)"#)
        case .choice: parts.append(#""default": \#(JSONText.quoted(p.defaultText))"#)
        default: break
        }
        var description = p.blurb
        if p.isPath { description += " (relative to the config file)" }
        parts.append(#""description": \#(JSONText.quoted(description))"#)
        return "{ " + parts.joined(separator: ", ") + " }"
    }
}
