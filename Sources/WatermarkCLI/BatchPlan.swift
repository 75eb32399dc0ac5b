import Glibc
import WatermarkModel

/// One file of a batch, checked: where it comes from, where it goes, and the overlay
/// (the element's launch description) with the row's overrides and placeholders applied.
package struct BatchItem: Sendable {
    /// The row's number, from 1 (manifest order; `{index}`).
    let index: Int
    /// Where the row was given: `manifest.csv:14` or `argument 3`.
    let origin: String
    package let input: String
    package let output: String
    package let overlay: Overlay
}

/// Reads a batch's rows (a manifest or the command line's inputs) and turns them into
/// items, or into the first problem, positioned, before anything is exported.
package struct BatchPlan {
    /// Columns that are not overlay fields.
    static let fileColumns: Set<String> = ["input", "output"]

    package var items: [BatchItem] = []

    /// The overlay options of the command line (for every row).
    package struct Common {
        var values: [String: PropertyValue]
        var config: String?
        /// `--output`: an output name with placeholders, relative to `outputDir`.
        var outputTemplate: String?
        var outputDir: String?
        /// `--var`: the same for every row.
        var variables = Variables()
        /// `--data`: the same for every row.
        var data: DataSpec?

        package init(
            values: [String: PropertyValue], config: String?, outputTemplate: String?, outputDir: String?,
            variables: Variables = Variables(), data: DataSpec? = nil
        ) {
            self.variables = variables
            self.data = data
            self.values = values
            self.config = config
            self.outputTemplate = outputTemplate
            self.outputDir = outputDir
        }
    }

    /// From a manifest file.
    package init(manifest path: String, common: Common) throws(UsageError) {
        let bytes: [UInt8]
        switch readFile(path, limit: 256 << 20) {
        case .success(let b): bytes = b
        case .failure(let e): throw UsageError(message: "--manifest: \(path): \(e.reason)")
        }
        let table: ManifestTable
        do {
            table = try ManifestTable.parse(bytes, file: path)
        } catch {
            throw UsageError(message: error.description)
        }
        let base = FilePath.split(path).dir
        try self.init(table: table, file: path, base: base, common: common)
    }

    /// From INPUT arguments.
    package init(inputs: [String], common: Common) throws(UsageError) {
        let table = ManifestTable(
            columns: ["input"],
            rows: inputs.enumerated().map { ManifestRow(line: $0.offset + 1, values: ["input": $0.element]) })
        try self.init(table: table, file: nil, base: "", common: common)
    }

    private init(table: ManifestTable, file: String?, base: String, common: Common) throws(UsageError) {
        func fail(_ line: Int, _ column: String?, _ message: String) -> UsageError {
            guard let file else {
                return UsageError(message: "argument \(line): " + (column.map { "\($0): " } ?? "") + message)
            }
            return UsageError(message: ManifestError(file: file, line: line, column: column, message).description)
        }
        let header = file == nil ? 0 : (table.rows.first.map { _ in 1 } ?? 0)
        guard table.columns.contains("input") else { throw fail(header, nil, "missing column \"input\"") }
        if common.outputTemplate == nil && common.outputDir == nil && !table.columns.contains("output") {
            throw UsageError(message: "give --output-dir DIR (or --output NAME, or an \"output\" column)")
        }
        // A column that is not a field must be used as a {placeholder} somewhere, which
        // catches a misspelt field ("opactiy") instead of ignoring it.
        var used = Set<String>()
        for t in [common.outputTemplate].compactMap({ $0 }) { used.formUnion(BatchPlaceholders.names(in: t)) }
        for case .string(let s?) in common.values.values { used.formUnion(BatchPlaceholders.names(in: s)) }
        for row in table.rows {
            for (name, value) in row.values where name == "output" || Self.isText(name) {
                used.formUnion(BatchPlaceholders.names(in: value))
            }
        }
        for name in table.columns where !Self.fileColumns.contains(name) && name != "config" {
            if Self.field(name) == nil && !used.contains(name) {
                throw fail(header, name, "unknown column: not an overlay field, and no {\(name)} uses it")
            }
        }

        var outputs: [String: String] = [:]  // normalised output → origin
        var checkedDirs = Set<String>()
        // Each config file is loaded once, however many rows name it.
        var checkedConfigs = Set<String>()
        let outputDir = common.outputDir.map { $0.hasSuffix("/") ? $0 : $0 + "/" } ?? ""
        for (k, row) in table.rows.enumerated() {
            let index = k + 1
            let origin = file.map { "\($0):\(row.line)" } ?? "argument \(row.line)"
            guard let given = row.values["input"] else { throw fail(row.line, "input", "is empty") }
            let input = FilePath.resolve(given, in: base)
            var fill = row.values
            fill.merge(BatchPlaceholders.fileValues(path: given, index: index)) { _, file in file }

            // The output: the row's, else --output's template in --output-dir, else {stem}.mp4 there.
            var output: String
            if let o = row.values["output"] {
                output = FilePath.resolve(try Self.name(o, fill, fail: { fail(row.line, "output", $0) }), in: base)
            } else {
                let template = common.outputTemplate ?? "{stem}.mp4"
                let name = try Self.name(template, fill, fail: { fail(row.line, nil, "--output: " + $0) })
                output = FilePath.resolve(name, in: outputDir)
            }
            do {
                _ = try Container(path: output)
            } catch {
                throw fail(row.line, row.values["output"] == nil ? nil : "output", error.message)
            }
            let key = FilePath.normalised(output)
            if let other = outputs[key] {
                throw fail(row.line, nil, "output \(output) is also the output of \(other)")
            }
            outputs[key] = origin
            if key == FilePath.normalised(input) || Self.sameFile(input, output) {
                throw fail(row.line, nil, "output \(output) is the input")
            }
            let dir = FilePath.split(output).dir
            if !checkedDirs.contains(dir) {
                let d = dir.isEmpty ? "." : dir
                if access(d, W_OK) != 0 {
                    throw fail(row.line, nil, "cannot write to \(d): \(systemError())")
                }
                checkedDirs.insert(dir)
            }

            // The overlay: the command line's values, the row's over them.
            var values = common.values
            var config = common.config
            for (name, text) in row.values where !Self.fileColumns.contains(name) {
                if name == "config" {
                    config = FilePath.resolve(text, in: base)
                    continue
                }
                guard let property = Self.field(name) else { continue }
                let key = property.name
                switch property.parse(text) {
                case .success(let v): values[key] = v
                case .failure(let e): throw fail(row.line, name, e.message)
                }
                if name == WatermarkProperties.mask.name, case .failure(let e) = MaskRegion.parseList(text) {
                    throw fail(row.line, name, e.description)
                }
                if property.isPath, case .string(let p?) = values[key] {
                    values[key] = .string(FilePath.resolve(p, in: base))
                }
            }
            do {
                try OverlayOptions.forensic(&values, key: nil)
            } catch {
                throw fail(row.line, WatermarkProperties.forensicId.name, error.message)
            }
            for (name, value) in values {
                if case .string(let s?) = value, Self.isText(name) {
                    values[name] = .string(BatchPlaceholders.expand(s, fill))
                }
            }
            var overlay: Overlay
            do {
                if let config, !checkedConfigs.contains(config) {
                    try OverlayOptions.check(config: config)
                    checkedConfigs.insert(config)
                }
                overlay = try OverlayOptions.overlay(values: values, config: config, variables: common.variables)
                overlay.data = common.data
            } catch {
                throw fail(row.line, nil, error.message)
            }
            items.append(BatchItem(index: index, origin: origin, input: input, output: output, overlay: overlay))
        }
    }

    /// The overlay option a column sets (a layer property, a mask, roi, forensic or subtitle
    /// property, by its option's name; nil: not a field).
    static func field(_ name: String) -> PropertyDefinition? {
        WatermarkProperties.commandLine.first { $0.optionName == name }
    }

    /// A layer's string property (text, font, …) whose value placeholders fill.
    static func isText(_ name: String) -> Bool {
        guard let p = field(name), p.scope == .layer, !p.isPath, case .string = p.type else { return false }
        return true
    }

    private static func name(_ template: String, _ fill: [String: String], fail: (String) -> UsageError)
        throws(UsageError)
        -> String
    {
        switch BatchPlaceholders.expandName(template, fill) {
        case .success(let s):
            guard !s.isEmpty, !s.hasSuffix("/") else { throw fail("\"\(template)\" gives no file name") }
            return s
        case .failure(let e):
            throw fail("unknown placeholder {\(e.name)} (a column, or filename, stem, ext, index)")
        }
    }

    /// Both exist and are one file (a link, another spelling).
    static func sameFile(_ a: String, _ b: String) -> Bool {
        var sa = stat(), sb = stat()
        return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino
    }
}
