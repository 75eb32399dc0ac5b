import CGStreamer
import Glibc
import Watermark
import WatermarkModel
import WatermarkTelemetry

/// The overlay options every command shares: one per layer property of the element, with
/// the property's name, help and range from the property table, plus `--config`.
package enum OverlayOptions {
    /// Short letters of the options used most.
    static let shortNames: [String: Character] = ["image": "i", "text": "t", "anchor": "a"]

    package static func add(to p: OptionParser) {
        for property in WatermarkProperties.commandLine {
            // --mask is repeatable: one region or more each time.
            let repeatable = property.name == WatermarkProperties.mask.name
            p.add(
                property.optionName, shortNames[property.name], repeatable ? .strings : kind(of: property),
                help(for: property) + (repeatable ? " (repeatable)" : ""), arg: argName(of: property))
        }
        p.add(
            "forensic-key-file", nil, .string, "A file holding forensic-key (a trailing newline is dropped)",
            arg: "FILE")
        p.add("config", "c", .string, "JSON file with any number of layers (see the README)", arg: "FILE")
        p.add(
            "filter", nil, .string,
            "A gst-launch fragment placed before the overlay (a detector or tracker that attaches regions of "
                + "interest, videobalance, …), with videoconvert on each side", arg: "DESCRIPTION")
        p.add(
            "var", nil, .strings, "Set a variable that {var:NAME} shows (repeatable); numbers stay numbers",
            arg: "NAME=VALUE")
        p.add(
            "data", nil, .string,
            "CSV or JSON Lines file of timed values that {data:FIELD} shows (a time column: seconds, or ISO 8601 "
                + "dates and times aligned to the input's creation time)", arg: "FILE")
        p.add("data-offset", nil, .double, "Seconds added to the data file's times (default 0)", arg: "SECONDS")
        p.add(
            "data-time-column", nil, .string,
            "The data file's time column (default: the first named time, t, timestamp, seconds or elapsed)",
            arg: "NAME")
        p.add("data-step", nil, .string, "Data fields held from row to row instead of interpolated", arg: "FIELD,…")
    }

    /// `--data FILE` and its companions, the file read and checked (a positioned message
    /// when it does not read).
    package static func data(from p: OptionParser) throws(UsageError) -> DataSpec? {
        guard let file = p.string("data") else {
            for other in ["data-time-column", "data-step"] where p.string(other) != nil {
                throw UsageError(message: "--\(other) needs --data FILE")
            }
            if p.double("data-offset") != nil {
                throw UsageError(message: "--data-offset needs --data FILE")
            }
            return nil
        }
        let spec = DataSpec(
            file: FilePath.absolute(file), offset: p.double("data-offset") ?? 0,
            timeColumn: p.string("data-time-column"),
            step: DataSpec.fields(p.string("data-step")))
        do {
            if let summary = try Telemetry.load(spec).summary { printErr(summary) }
        } catch {
            throw UsageError(message: "--data: \(error)")
        }
        return spec
    }

    /// A GoPro recording's own telemetry, found without an option: the input as the data
    /// file when it has a GPMF track (its one-line summary printed), else nil. A damaged
    /// track is said in one line and left out.
    package static func telemetry(in input: String) -> DataSpec? {
        guard let file = FileBytes(path: input),
            Telemetry.kind(of: input, head: file.read(0, min(file.count, 64)) ?? []) == .gopro
        else { return nil }
        let spec = DataSpec(file: FilePath.absolute(input))
        do {
            let (_, summary) = try Telemetry.load(spec)
            if let summary { printErr(summary) }
            return spec
        } catch {
            // Most MP4 files have no GoPro track: that is not worth a line.
            if !error.message.hasPrefix("has no GoPro telemetry track") {
                printErr("gst-watermark: GoPro telemetry left out: \(error)")
            }
            return nil
        }
    }

    /// `--var NAME=VALUE`, every one given.
    package static func variables(from p: OptionParser) throws(UsageError) -> Variables {
        var values: [String: VariableValue] = [:]
        for given in p.strings("var") {
            guard let eq = given.firstIndex(of: "="), Variables.isName(String(given[..<eq])) else {
                throw UsageError(message: "--var: \"\(given)\" is not NAME=VALUE (a name of letters, digits, _ - .)")
            }
            values[String(given[..<eq])] = VariableValue(parsing: String(given[given.index(after: eq)...]))
        }
        return Variables(values)
    }

    static func kind(of property: PropertyDefinition) -> OptionParser.Kind {
        switch property.type {
        case .double: .double
        case .bool: .flag
        case .string, .uint, .color, .choice, .counter: .string
        }
    }

    static func argName(of property: PropertyDefinition) -> String? {
        switch property.type {
        case .double, .uint: "N"
        case .bool: nil
        case .color: "COLOUR"
        case .choice: property.name.uppercased()
        case .string, .counter: property.isPath ? "FILE" : property.name.uppercased().replacingAll("-", with: "_")
        }
    }

    /// The property's blurb with what the command line adds: other colour spellings, the
    /// choices, the default.
    static func help(for property: PropertyDefinition) -> String {
        var help = property.blurb
        switch property.type {
        case .color: help += "; also #RRGGBB, #RRGGBBAA or a name"
        case .choice(let c): help += ": " + c.nicks.joined(separator: ", ")
        default: break
        }
        if property.defaultText != "none" && property.type != .bool { help += " (default \(property.defaultText))" }
        return help
    }

    /// The overlay the options describe, checked.
    package static func overlay(from p: OptionParser) throws(UsageError) -> Overlay {
        let config = p.string("config")
        if let config { try check(config: config) }
        var overlay = try overlay(values: values(from: p), config: config, variables: variables(from: p))
        overlay.data = try data(from: p)
        overlay.filter = try filter(from: p)
        return overlay
    }

    /// `--filter`: the fragment, checked by building it (a missing element or property is a
    /// usage error naming it, before anything runs).
    package static func filter(from p: OptionParser) throws(UsageError) -> String? {
        guard let text = p.string("filter") else { return nil }
        let fragment = text.trimmingWhitespace()
        guard !fragment.isEmpty else { throw UsageError(message: "--filter: the description is empty") }
        do {
            gst_object_unref(try parsedPipeline(Branch(Overlay.filterSteps(fragment)).text))
        } catch {
            let prefix = "invalid pipeline: "
            let m = error.message.hasPrefix(prefix) ? String(error.message.dropFirst(prefix.count)) : error.message
            throw UsageError(message: "--filter \"\(fragment)\": " + m)
        }
        return fragment
    }

    /// The layer properties the options set, checked, by property name.
    package static func values(from p: OptionParser) throws(UsageError) -> [String: PropertyValue] {
        var values: [String: PropertyValue] = [:]
        let masks = p.strings(WatermarkProperties.mask.name)
        if !masks.isEmpty {
            let text = masks.joined(separator: ";")
            if case .failure(let fault) = MaskRegion.parseList(text) {
                throw UsageError(message: "--mask \"\(text)\": \(fault)")
            }
            values[WatermarkProperties.mask.name] = .string(text)
        }
        for property in WatermarkProperties.commandLine where property.name != WatermarkProperties.mask.name {
            switch property.type {
            case .bool:
                guard p.flag(property.optionName) else { continue }
                values[property.name] = .bool(true)
            case .double:
                guard let v = p.double(property.optionName) else { continue }
                values[property.name] = try checked(property.checked(v), property)
            default:
                guard let text = p.string(property.optionName) else { continue }
                values[property.name] = try checked(property.parse(text), property)
            }
        }
        try forensic(&values, key: ForensicID.key(from: p))
        return values
    }

    /// The forensic id as 16 hexadecimal digits (any other text stands for its SHA-256's
    /// first 64 bits) and the key (`--forensic-key` or the file's); an id needs a key.
    static func forensic(_ values: inout [String: PropertyValue], key: String?) throws(UsageError) {
        let idName = WatermarkProperties.forensicId.name, keyName = WatermarkProperties.forensicKey.name
        if let key { values[keyName] = .string(key) }
        guard case .string(let text?) = values[idName] else { return }
        guard !text.isEmpty else { throw UsageError(message: "--forensic-id: the id is empty") }
        values[idName] = .string(ForensicID.normalised(text))
        guard case .string(let k?) = values[keyName], !k.isEmpty else {
            throw UsageError(message: "--forensic-id needs --forensic-key KEY or --forensic-key-file FILE")
        }
    }

    /// A config file loads (layers, images, ranges), or the loader's positioned message.
    static func check(config path: String) throws(UsageError) {
        do {
            _ = try LayerConfig.load(path: path)
        } catch {
            throw UsageError(message: "--config: \(error)")
        }
    }

    /// The overlay of `values` (in the table's order) and a config file (checked by the
    /// caller, `check(config:)`); files the values name must be readable.
    package static func overlay(
        values: [String: PropertyValue], config: String?, variables: Variables = Variables()
    ) throws(UsageError) -> Overlay {
        var properties: [(property: PropertyDefinition, value: PropertyValue)] = []
        for property in WatermarkProperties.commandLine {
            guard let value = values[property.name] else { continue }
            if property.isPath, case .string(let path?) = value, access(path, R_OK) != 0 {
                throw UsageError(message: "--\(property.optionName): \(path): \(systemError())")
            }
            if property.name == WatermarkProperties.subtitleFile.name, case .string(let path?) = value {
                try checkSubtitles(path)
            }
            properties.append((property, value))
        }
        return Overlay(properties: properties, config: config, variables: variables)
    }

    /// A subtitle file reads and is one (its positioned message when not), before anything is written.
    static func checkSubtitles(_ path: String) throws(UsageError) {
        switch readFile(path, limit: 64 << 20) {
        case .failure(let e): throw UsageError(message: "--subtitles: \(path): \(e.reason)")
        case .success(let bytes):
            do {
                _ = try SubtitleParser.parse(bytes, file: path)
            } catch {
                throw UsageError(message: "--subtitles: \(error)")
            }
        }
    }

    private static func checked(
        _ result: Result<PropertyValue, PropertyValueError>,
        _ property: PropertyDefinition
    ) throws(UsageError) -> PropertyValue {
        switch result {
        case .success(let v): return v
        case .failure(let e): throw UsageError(message: "--\(property.optionName): \(e.message)")
        }
    }
}

enum LaunchLine {
    /// Splits a launch description at spaces outside double-quoted values.
    static func words(_ description: String) -> [String] {
        var words: [String] = []
        var current = ""
        var quoted = false, escaped = false
        for ch in description {
            if escaped {
                current.append(ch)
                escaped = false
            } else if ch == "\\" {
                current.append(ch)
                escaped = true
            } else if ch == "\"" {
                current.append(ch)
                quoted.toggle()
            } else if ch == " " && !quoted {
                if !current.isEmpty { words.append(current) }
                current = ""
            } else {
                current.append(ch)
            }
        }
        if !current.isEmpty { words.append(current) }
        return words
    }

    /// A word as the shell should see it: bare when it is plain, single-quoted otherwise.
    static func shellWord(_ word: String) -> String {
        let plain = word.unicodeScalars.allSatisfy {
            ($0.value < 128 && ($0.properties.isAlphabetic || $0.properties.numericType != nil))
                || "_./:=,-+!%@".unicodeScalars.contains($0)
        }
        return plain ? word : shellQuote(word)
    }

    /// Quotes a whole argument for a POSIX shell.
    static func shellQuote(_ s: String) -> String {
        "'" + s.replacingAll("'", with: "'\\''") + "'"
    }
}
