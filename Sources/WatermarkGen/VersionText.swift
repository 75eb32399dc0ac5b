// The version, from the package's VERSION file: the Swift constant and the man page's title.

import Foundation

enum VersionText {
    static func version(root: String) -> String {
        let text = (try? String(contentsOfFile: root + "/VERSION", encoding: .utf8)) ?? ""
        return text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    static func swift(root: String) -> String {
        """
        // \(Generated.notice.replacingOccurrences(of: "Sources/WatermarkModel/PropertyTable.swift", with: "VERSION")).

        /// The package's version (VERSION).
        package enum WatermarkVersion {
            package static let text = "\(version(root: root))"
        }

        """
    }

    static func manTitle(root: String) -> String {
        #".TH GST-WATERMARK 1 "2026-11-30" "gst-watermark \#(version(root: root))" "User Commands""#
    }
}
