import Foundation
import TestSupport
import Testing
import WatermarkModel

/// The property table is the one source of names, types, defaults and ranges: it must be
/// consistent in itself, and the config schema and the README must say what it says.
@Suite struct PropertyTableTests {
    @Test func namesAreUniqueAndDefaultsFitTheirTypes() {
        let names = WatermarkProperties.all.map(\.name)
        #expect(Set(names).count == names.count)
        for p in WatermarkProperties.all {
            switch (p.type, p.defaultValue) {
            case (.double(let range), .double(let v)):
                #expect(range.contains(v), "\(p.name): default \(v) outside \(range)")
                if let user = p.explicitRange {
                    #expect(range.lowerBound <= user.lowerBound && user.upperBound <= range.upperBound, "\(p.name)")
                }
            case (.uint(let range), .uint(let v)):
                #expect(range.contains(v), "\(p.name): default \(v) outside \(range)")
            case (.choice(let c), .choice(let i)): #expect(c.values.indices.contains(i), "\(p.name)")
            case (.string, .string), (.color, .color), (.bool, .bool), (.counter, .counter): break
            default: Issue.record("\(p.name): default \(p.defaultValue) is not a \(p.type)")
            }
            #expect(!p.blurb.isEmpty && !p.nick.isEmpty, "\(p.name)")
        }
    }

    @Test func aNewLayerHasEveryDefault() {
        let layer = LayerSpec()
        for p in WatermarkProperties.layer {
            #expect(layer.value(of: p) == p.defaultValue, "\(p.name)")
        }
    }

    @Test func setAndValueRoundTripEveryLayerProperty() {
        for p in WatermarkProperties.layer {
            var layer = LayerSpec()
            let value: PropertyValue =
                switch p.type {
                case .string: .string(p.isPath ? "/tmp/x.png" : "abc")
                case .double(let r): .double(r.upperBound)
                case .uint(let r): .uint(r.upperBound)
                case .color: .color(ARGBColor(argb: 0x8012_3456))
                case .bool: .bool(true)
                case .choice(let c): .choice(c.values.count - 1)
                case .counter: .counter(1)
                }
            layer.set(p, value)
            #expect(layer.value(of: p) == value, "\(p.name)")
        }
    }

    @Test func setClampsAndReplacesNonFiniteNumbers() {
        var layer = LayerSpec()
        layer.set(WatermarkProperties.opacity.definition, .double(7))
        layer.set(WatermarkProperties.textSize.definition, .double(.nan))
        layer.set(WatermarkProperties.end.definition, .double(-0.5))
        layer.set(WatermarkProperties.motionSeed.definition, .double(3))
        #expect(layer.opacity == 1)
        #expect(layer.style.textSize == WatermarkProperties.textSize.defaultValue)
        #expect(layer.timing.end == -1)
        // A value of another type than the entry's is ignored.
        #expect(layer.motion.seed == 0)
    }

    /// docs/config.schema.json describes each layer field as the table does: type, range,
    /// default and enum values, and no field the table does not have.
    @Test func configSchemaMatchesTheTable() throws {
        let data = try #require(FileManager.default.contents(atPath: TestEnv.root + "/docs/config.schema.json"))
        let schema = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let defs = try #require(schema["$defs"] as? [String: Any])
        let layer = try #require(defs["layer"] as? [String: Any])
        let fields = try #require(layer["properties"] as? [String: [String: Any]])
        #expect(Set(fields.keys) == Set(LayerConfig.layerFields))
        /// A field's schema with a `$ref` resolved (its own keys win).
        func resolved(_ field: [String: Any]) -> [String: Any] {
            guard let ref = field["$ref"] as? String, let name = ref.split(separator: "/").last,
                let target = defs[String(name)] as? [String: Any]
            else { return field }
            return target.merging(field) { $1 }
        }
        for p in WatermarkProperties.layer {
            let f = resolved(try #require(fields[p.name], "\(p.name) missing from the schema"))
            switch p.type {
            case .double:
                #expect(f["type"] as? String == "number", "\(p.name)")
                let range = try #require(p.userRange)
                #expect((f["minimum"] as? Double) == range.lowerBound, "\(p.name): minimum")
                #expect((f["maximum"] as? Double) == range.upperBound, "\(p.name): maximum")
                if case .double(let d) = p.defaultValue, p.explicitRange == nil {
                    #expect((f["default"] as? Double) == d, "\(p.name): default")
                }
            case .uint(let range):
                #expect(f["type"] as? String == "integer", "\(p.name)")
                #expect((f["minimum"] as? Double) == Double(range.lowerBound), "\(p.name): minimum")
                #expect((f["maximum"] as? Double) == Double(range.upperBound), "\(p.name): maximum")
                if case .uint(let d) = p.defaultValue { #expect((f["default"] as? Double) == Double(d), "\(p.name)") }
            case .string:
                #expect(f["type"] as? String == "string", "\(p.name)")
                if case .string(let d?) = p.defaultValue { #expect(f["default"] as? String == d, "\(p.name): default") }
                #expect(((f["minLength"] as? Int) ?? 0) == (p.allowsEmpty ? 0 : 1), "\(p.name): minLength")
            case .color:
                #expect(f["type"] as? String == "string", "\(p.name)")
                if case .color(let d) = p.defaultValue {
                    let text = try #require(f["default"] as? String, "\(p.name): default")
                    #expect(ARGBColor(parsing: text) == d, "\(p.name): default")
                }
            case .bool:
                #expect(f["type"] as? String == "boolean", "\(p.name)")
                if case .bool(let d) = p.defaultValue { #expect(f["default"] as? Bool == d, "\(p.name): default") }
            case .choice(let c):
                #expect(f["enum"] as? [String] == c.nicks, "\(p.name)")
                #expect(f["default"] as? String == p.defaultText, "\(p.name): default")
            case .counter:
                Issue.record("\(p.name): a read-only counter is not a layer field")
            }
        }
    }

    /// The README's property table lists every element property once, with the table's
    /// type and default.
    @Test func readmePropertyTableMatchesTheTable() throws {
        let readme = try String(contentsOfFile: TestEnv.root + "/README.md", encoding: .utf8)
        // The section ends at the next heading of its level (other tables follow).
        let sections = readme.components(separatedBy: "## Properties").dropFirst().first?.components(
            separatedBy: "\n## ")
        let section = try #require(sections?.first)
        var rows: [String: (type: String, defaultText: String)] = [:]
        for line in section.split(separator: "\n") where line.hasPrefix("| `") {
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map {
                $0.trimmingCharacters(in: .whitespaces)
            }
            guard cells.count > 4 else { continue }
            for name in cells[1].split(separator: ",") {
                let n = name.trimmingCharacters(in: .whitespaces).trimmingCharacters(
                    in: CharacterSet(charactersIn: "`"))
                #expect(rows[n] == nil, "\(n) listed twice")
                rows[n] = (cells[2], cells[3])
            }
        }
        #expect(Set(rows.keys) == Set(WatermarkProperties.all.map(\.name)))
        for p in WatermarkProperties.all {
            guard let row = rows[p.name] else { continue }
            let type =
                switch p.type {
                case .string: p.isStructure ? "GstStructure" : "string"
                case .double: "double"
                case .uint: "uint"
                case .color: "uint"
                case .bool: "bool"
                case .choice: "enum"
                case .counter: "uint64 (read-only)"
                }
            #expect(row.type == type, "\(p.name): README says \(row.type)")
            let defaults = row.defaultText.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            let expected: String =
                switch p.defaultValue {
                case .color(let c):
                    "`0x"
                        + String(String(c.argb, radix: 16, uppercase: true).reversed()).padding(
                            toLength: 8, withPad: "0", startingAt: 0
                        ).reversed() + "`"
                case .string(let s?): "`\(s)`"
                case .choice: "`\(p.defaultText)`"
                default: p.defaultText
                }
            #expect(defaults.contains(expected), "\(p.name): README default \(row.defaultText), table \(expected)")
        }
    }

    /// The man page's OVERLAY OPTIONS and the README's list of CLI overlay options name
    /// every layer property (each is an option of every command).
    @Test func manPageAndReadmeListEveryOverlayOption() throws {
        let man = try String(contentsOfFile: TestEnv.root + "/docs/gst-watermark.1", encoding: .utf8)
        let sections = man.components(separatedBy: ".SH OVERLAY OPTIONS").dropFirst().first?
            .components(separatedBy: ".SH")
        let section = try #require(sections?.first)
        let readme = try String(contentsOfFile: TestEnv.root + "/README.md", encoding: .utf8)
        let parts = readme.components(separatedBy: "Overlay options have the property names").dropFirst()
            .first?.components(separatedBy: "plus `--config FILE`")
        let cli = try #require(parts?.first)
        for p in WatermarkProperties.layer {
            #expect(section.contains("\\fB\\-\\-\(p.name)\\fR"), "man page lacks --\(p.name)")
            #expect(cli.contains("`--\(p.name)`"), "README lacks --\(p.name)")
        }
    }
}
