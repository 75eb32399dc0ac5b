import Foundation
import TestSupport
import Testing
import WatermarkModel

/// `{var:NAME}` and `{var:NAME:FORMAT}`: parsed once, expanded from the frame's variables,
/// numbers through a checked printf conversion.
@Suite struct VariableTests {
    static func expand(_ text: String, _ values: [String: VariableValue]) -> String {
        var clock = FrameClock()
        clock.variables = Variables(values)
        return TextTemplate(text).expand(clock)
    }

    @Test func variablesShowTheirValues() {
        let v: [String: VariableValue] = ["home": .int(2), "away": .int(1), "speaker": .string("Ana Lima")]
        #expect(Self.expand("HOME {var:home} – {var:away} AWAY", v) == "HOME 2 – 1 AWAY")
        #expect(Self.expand("{var:speaker}", v) == "Ana Lima")
        #expect(TextTemplate("{var:home}:{var:away}{var:home}").variableNames == ["home", "away"])
        #expect(!TextTemplate("{var:home}").isStatic)
    }

    @Test(arguments: [
        ("%d", VariableValue.double(72.9), "72"), ("%.1f", .double(72.96), "73.0"),
        ("%05.1f", .double(3.14159), "003.1"),
        ("%d", .int(-5), "-5"), ("%+d", .int(5), "+5"), ("%x", .int(255), "ff"), ("%.2e", .int(1500), "1.50e+03"),
        ("%.1f", .string("n/a"), "n/a"), ("%d", .bool(true), "true"),
    ])
    func formats(format: String, value: VariableValue, shown: String) {
        #expect(Self.expand("{var:v:\(format)}", ["v": value]) == shown)
    }

    @Test func withoutAFormatNumbersAreWrittenAsPeopleWriteThem() {
        #expect(
            Self.expand("{var:a} {var:b} {var:c}", ["a": .double(2), "b": .double(0.25), "c": .int(1_000_000)])
                == "2 0.25 1000000")
    }

    /// An unset variable shows nothing; a placeholder that is not one stays as written.
    @Test func unsetAndMalformed() {
        #expect(Self.expand("[{var:missing}]", [:]) == "[]")
        for text in [
            "{var:}", "{var:9lives}", "{var:x:%s}", "{var:x:%n}", "{var:x:%d%d}", "{var:x:%1000d}", "{var:x:d}",
        ] {
            #expect(Self.expand(text, ["x": .int(1)]) == text, "\(text)")
        }
    }

    @Test func changesApplyAtOnceAndNullUnsets() throws {
        let base = Variables(["home": .int(2), "away": .int(1)])
        let node = try JSONReader.parse(Array(#"{"home": 3, "speaker": "Ana", "away": null, "pi": 3.5}"#.utf8))
        let changes = try Variables.changes(fromJSON: node).get()
        let next = base.applying(changes)
        #expect(next == Variables(["home": .int(3), "speaker": .string("Ana"), "pi": .double(3.5)]))
        #expect(next.json == #"{"home":3,"pi":3.5,"speaker":"Ana"}"#)
        #expect(next.structureText == #"variables, home=(gint64)3, pi=(double)3.5, speaker=(string)"Ana""#)
        for bad in [#"[1]"#, #"{"a": [1]}"#, #"{"9": 1}"#, #"{"a b": 1}"#] {
            let n = try JSONReader.parse(Array(bad.utf8))
            if case .success = Variables.changes(fromJSON: n) { Issue.record("\(bad) was accepted") }
        }
    }

    @Test func valuesAsUsersTypeThem() {
        #expect(VariableValue(parsing: "3") == .int(3))
        #expect(VariableValue(parsing: "-2.5") == .double(-2.5))
        #expect(VariableValue(parsing: "true") == .bool(true))
        #expect(VariableValue(parsing: "Ana Lima") == .string("Ana Lima"))
        #expect(VariableValue(parsing: "inf") == .string("inf"))
        #expect(VariableValue(parsing: "") == .string(""))
    }

    /// A string with quotes and backslashes survives the GstStructure text.
    @Test func structureTextQuotes() {
        #expect(Variables(["s": .string(#"a "b" \c"#)]).structureText == #"variables, s=(string)"a \"b\" \\c""#)
    }
}

/// A config document's `"variables"`: read with the layers, positioned when wrong, and kept
/// in the document a controlled run hands the element.
@Suite struct ConfigVariableTests {
    @Test func aDocumentCarriesItsVariables() throws {
        let json = #"{ "layers": [ { "text": "{var:home}" } ], "variables": { "home": 2, "team": "Blue", "x": null } }"#
        let doc = try LayerConfig.parseDocument(Array(json.utf8), file: "s.json", directory: "/")
        #expect(doc.variables == Variables(["home": .int(2), "team": .string("Blue")]))
        #expect(doc.layers.count == 1)
    }

    @Test(arguments: [
        (#"{ "layers": [], "variables": [1] }"#, #"s.json:1:30: "variables": expected an object of variables"#),
        (#"{ "layers": [], "variables": { "a": {} } }"#, #""variables": "a": expected a number"#),
        (#"{ "layers": [], "vars": {} }"#, #"unknown field (expected "layers", "variables" or "data")"#),
    ])
    func badVariablesArePositioned(json: String, message: String) {
        #expect {
            _ = try LayerConfig.parseDocument(Array(json.utf8), file: "s.json", directory: "/")
        } throws: { error in
            "\(error)".contains(message)
        }
    }

    @Test func aControlledRunKeepsTheFilesVariables() throws {
        let path = TestEnv.path("vars-config.json")
        try #"{ "layers": [ { "text": "{var:home}" } ], "variables": { "home": 2 } }"#.write(
            toFile: path, atomically: true, encoding: .utf8)
        var doc = try LayerDocument(config: path, values: [:], root: "/", isImage: { _ in nil })
        #expect(doc.document.hasSuffix(#","variables":{"home":2}}"#), "\(doc.document)")
        try #"{ "layers": [ { "text": "{var:home}" } ], "variables": { "home": 5 } }"#.write(
            toFile: path, atomically: true, encoding: .utf8)
        #expect(doc.reload(path) == nil)
        let reread = try LayerConfig.parseDocument(Array(doc.document.utf8), file: "d", directory: "/")
        #expect(reread.variables == Variables(["home": .int(5)]))
    }
}
