import Foundation
import TestSupport
import Testing
import WatermarkGen
import WatermarkModel

/// The committed files written from the property table are what the table writes now: a
/// property changed without `swift run wm-gen` fails here.
@Suite struct GeneratedFilesTests {
    @Test func everyGeneratedFileIsUpToDate() throws {
        for file in try Generated.check(root: TestEnv.root) {
            #expect(file.current != nil, "\(file.path) is missing")
            guard let current = file.current, current != file.wanted else { continue }
            let a = current.split(separator: "\n", omittingEmptySubsequences: false)
            let b = file.wanted.split(separator: "\n", omittingEmptySubsequences: false)
            let line = (0..<min(a.count, b.count)).first { a[$0] != b[$0] } ?? min(a.count, b.count)
            let have = line < a.count ? String(a[line]) : "", want = line < b.count ? String(b[line]) : ""
            Issue.record(
                "\(file.path) differs from the table at line \(line + 1): run `swift run wm-gen` (have \"\(have)\", want \"\(want)\")"
            )
        }
    }

    /// Each generated file, or generated part, says so in its first line.
    @Test func generatedFilesSaySo() throws {
        for file in try Generated.check(root: TestEnv.root) {
            let first = file.wanted.split(separator: "\n").first.map(String.init) ?? ""
            let region = Generated.outputs.first { $0.path == file.path }?.markers?.begin
            #expect(region?.contains(Generated.notice) ?? first.contains(Generated.notice), "\(file.path)")
        }
    }

    /// A region whose markers were removed is an error naming the file, not a silent rewrite.
    @Test func aFileWithoutItsMarkersIsAnError() throws {
        let readme = try #require(Generated.outputs.first { $0.path == "README.md" })
        #expect(throws: Generated.GenerationError.self) { try readme.apply(to: "# no table here\n") }
    }

    /// The schema written from the table is JSON whose layer fields are the config parser's.
    @Test func theSchemaIsJSONWithTheParsersFields() throws {
        let schema = try #require(Generated.outputs.first { $0.path == "docs/config.schema.json" }).text()
        let object = try #require(try JSONSerialization.jsonObject(with: Data(schema.utf8)) as? [String: Any])
        let layer = try #require((object["$defs"] as? [String: Any])?["layer"] as? [String: Any])
        let fields = try #require(layer["properties"] as? [String: Any])
        #expect(Set(fields.keys) == Set(LayerConfig.layerFields))
        let seed = try #require(fields["motion-seed"] as? [String: Any])
        #expect(seed["type"] as? String == "integer" && seed["maximum"] as? Double == 4_294_967_295)
    }
}
