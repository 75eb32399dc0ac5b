import Foundation
import TestSupport
import Testing

/// The README stays a user's guide: at most 500 lines (a feature's details go to a page
/// under docs/), and every relative link in the documentation leads to a file.
@Suite struct DocumentationTests {
    static let pages = ["README.md", "ARCHITECTURE.md", "Benchmarks/README.md"]

    @Test func theReadmeIsAtMost500Lines() throws {
        let readme = try String(contentsOfFile: TestEnv.root + "/README.md", encoding: .utf8)
        let lines = readme.split(separator: "\n", omittingEmptySubsequences: false).count
        #expect(lines <= 500, "README.md has \(lines) lines: move a feature's details to a page under docs/")
    }

    @Test func everyRelativeLinkLeadsToAFile() throws {
        let docs = try FileManager.default.contentsOfDirectory(atPath: TestEnv.root + "/docs")
            .filter { $0.hasSuffix(".md") }.map { "docs/" + $0 }
        #expect(!docs.isEmpty)
        let link = try Regex(#"\]\(([^)\s]+)\)"#)
        for page in Self.pages + docs {
            let text = try String(contentsOfFile: TestEnv.root + "/" + page, encoding: .utf8)
            let dir = (page as NSString).deletingLastPathComponent
            for match in text.matches(of: link) {
                guard let target = match.output[1].substring.map(String.init) else { continue }
                if target.hasPrefix("http") || target.hasPrefix("#") || target.hasPrefix("mailto:") { continue }
                let path = String(target.split(separator: "#", maxSplits: 1).first ?? "")
                let full = ((TestEnv.root + "/" + dir) as NSString).appendingPathComponent(path)
                #expect(FileManager.default.fileExists(atPath: full), "\(page): \(target) leads nowhere")
            }
        }
    }
}
