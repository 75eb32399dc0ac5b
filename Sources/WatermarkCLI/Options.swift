// Invariant: every C string and value slot handed to GOption is allocated here, stays
// alive for the parser's whole life, and is freed in deinit; GOption only writes to the
// slots during `parse`.

import CGStreamer
import Glibc
import Synchronization

/// Command-line options parsed by GLib's GOption, with GStreamer's own option group
/// (--gst-debug, --gst-debug-level, …), as every GStreamer tool does.
package final class OptionParser {
    private static let parsing = Mutex(())

    package enum Kind {
        case string, double, int, flag
        /// A string option that may be given several times (`--var a=1 --var b=2`).
        case strings
        /// An integer whose value may be left out (`--burn-subtitles` is `--burn-subtitles=1`).
        case optionalInt(default: Int)
    }

    struct Option {
        let long: String
        let short: Character?
        let kind: Kind
        let help: String
        let argName: String?
    }

    private let summary: String
    private let parameters: String
    private var options: [Option] = []
    private var slots: [String: UnsafeMutableRawPointer] = [:]
    private var cStrings: [UnsafeMutablePointer<CChar>] = []

    package init(parameters: String, summary: String) {
        self.parameters = parameters
        self.summary = summary
    }

    deinit {
        for (name, slot) in slots {
            switch options.first(where: { $0.long == name })?.kind {
            case .string: g_free(slot.load(as: UnsafeMutablePointer<CChar>?.self))
            case .strings: g_strfreev(slot.load(as: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?.self))
            default: break
            }
            slot.deallocate()
        }
        for s in cStrings { free(s) }
    }

    package func add(_ long: String, _ short: Character? = nil, _ kind: Kind, _ help: String, arg: String? = nil) {
        options.append(Option(long: long, short: short, kind: kind, help: help, argName: arg))
    }

    private func keep(_ s: String) -> UnsafeMutablePointer<CChar> {
        let p = strdup(s)!
        cStrings.append(p)
        return p
    }

    /// What every command does first: parses the arguments (GOption's GStreamer group
    /// initialises GStreamer), registers the linked-in element and takes `--verbose`.
    /// Returns the positional arguments.
    package func start(program: String, _ arguments: [String]) throws(UsageError) -> [String] {
        let positional = try parse(program: program, arguments)
        registerElement()
        Diagnostics.verbose.store(flag("verbose"), ordering: .relaxed)
        return positional
    }

    /// Parses `arguments` (without the program and command names' own handling: pass
    /// them as argv). Returns the positional arguments, or throws GOption's message.
    package func parse(program: String, _ arguments: [String]) throws(UsageError) -> [String] {
        var entries: [GOptionEntry] = []
        for o in options {
            let size: Int
            let arg: GOptionArg
            switch o.kind {
            case .string: (size, arg) = (MemoryLayout<UnsafeMutablePointer<CChar>?>.size, G_OPTION_ARG_STRING)
            case .double: (size, arg) = (MemoryLayout<Double>.size, G_OPTION_ARG_DOUBLE)
            case .int, .optionalInt: (size, arg) = (MemoryLayout<Int32>.size, G_OPTION_ARG_INT)
            case .flag: (size, arg) = (MemoryLayout<Int32>.size, G_OPTION_ARG_NONE)
            case .strings: (size, arg) = (MemoryLayout<UnsafeMutableRawPointer?>.size, G_OPTION_ARG_STRING_ARRAY)
            }
            let slot = UnsafeMutableRawPointer.allocate(byteCount: max(size, 8), alignment: 8)
            switch o.kind {
            case .string: slot.storeBytes(of: nil, as: UnsafeMutablePointer<CChar>?.self)
            case .double: slot.storeBytes(of: Double.nan, as: Double.self)
            case .int, .optionalInt: slot.storeBytes(of: Int32.min, as: Int32.self)
            case .flag: slot.storeBytes(of: 0, as: Int32.self)
            case .strings: slot.storeBytes(of: nil, as: UnsafeMutableRawPointer?.self)
            }
            slots[o.long] = slot
            entries.append(
                GOptionEntry(
                    long_name: UnsafePointer(keep(o.long)),
                    short_name: o.short.map { CChar(truncatingIfNeeded: $0.asciiValue ?? 0) } ?? 0,
                    flags: 0, arg: arg, arg_data: slot,
                    description: UnsafePointer(keep(o.help)),
                    arg_description: o.argName.map { UnsafePointer(keep($0)) }))
        }
        entries.append(GOptionEntry())

        let context = g_option_context_new(parameters)
        defer { g_option_context_free(context) }
        g_option_context_set_summary(context, summary)
        entries.withUnsafeBufferPointer { g_option_context_add_main_entries(context, $0.baseAddress, nil) }
        g_option_context_add_group(context, gst_init_get_option_group())

        // GOption takes an optional value only through a callback: a bare option gets its default here.
        var bare: [String: String] = [:]
        for o in options { if case .optionalInt(let d) = o.kind { bare["--" + o.long] = "--\(o.long)=\(d)" } }
        let ended = arguments.firstIndex(of: "--") ?? arguments.count
        let given = arguments.enumerated().map { i, a in i < ended ? bare[a] ?? a : a }
        var argv: [UnsafeMutablePointer<CChar>?] = ([program] + given).map { strdup($0) }
        let original = argv
        defer { for p in original { free(p) } }
        var argc = Int32(argv.count)
        argv.append(nil)
        var error: UnsafeMutablePointer<GError>?
        // GStreamer's option group initialises GStreamer without gst_init's lock: one parse
        // at a time (a program parses once; tests parse from many threads).
        let ok = Self.parsing.withLock { _ in
            argv.withUnsafeMutableBufferPointer { buf -> gboolean in
                var base: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = buf.baseAddress
                return g_option_context_parse(context, &argc, &base, &error)
            }
        }
        if ok == 0 {
            let message = error.map { String(cString: $0.pointee.message) } ?? "invalid arguments"
            if let error { g_error_free(error) }
            throw UsageError(message: message)
        }
        // GOption removed what it parsed; argv[0] is the program.
        return argv.prefix(Int(argc)).dropFirst().compactMap { $0.map { String(cString: $0) } }
    }

    package func string(_ name: String) -> String? {
        guard let slot = slots[name], let p = slot.load(as: UnsafeMutablePointer<CChar>?.self) else { return nil }
        return String(cString: p)
    }

    /// Every value of a repeatable option, in the order given.
    package func strings(_ name: String) -> [String] {
        guard let slot = slots[name],
            let array = slot.load(as: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?.self)
        else { return [] }
        var out: [String] = []
        var i = 0
        while let p = array[i] {
            out.append(String(cString: p))
            i += 1
        }
        return out
    }

    package func double(_ name: String) -> Double? {
        guard let v = slots[name]?.load(as: Double.self), !v.isNaN else { return nil }
        return v
    }

    package func int(_ name: String) -> Int? {
        guard let v = slots[name]?.load(as: Int32.self), v != Int32.min else { return nil }
        return Int(v)
    }

    package func flag(_ name: String) -> Bool { (slots[name]?.load(as: Int32.self) ?? 0) != 0 }
}

package struct UsageError: Error {
    package let message: String

    package init(message: String) { self.message = message }
}
