// wm-gen: writes the files generated from the property table (see WatermarkGen), from the
// package's root: `swift run wm-gen` after changing Sources/WatermarkModel/PropertyTable.swift.
// `wm-gen --check` writes nothing and exits 1 when a file is out of date.

import Foundation
import WatermarkGen

let check = CommandLine.arguments.dropFirst().contains("--check")
let root = FileManager.default.currentDirectoryPath
do {
    var stale: [String] = []
    for file in try Generated.check(root: root) where file.current != file.wanted {
        stale.append(file.path)
        if !check { try file.wanted.write(toFile: root + "/" + file.path, atomically: true, encoding: .utf8) }
    }
    if check && !stale.isEmpty {
        FileHandle.standardError.write(Data("wm-gen: out of date: \(stale.joined(separator: ", "))\n".utf8))
        exit(1)
    }
    print(
        stale.isEmpty ? "wm-gen: every generated file is up to date" : "wm-gen: wrote \(stale.joined(separator: ", "))")
} catch {
    FileHandle.standardError.write(Data("wm-gen: \(error)\n".utf8))
    exit(1)
}
