// A subtitle document rendered by libass at a frame size: per frame, libass says whether the
// picture changed since the last call; only then are its bitmaps composited into one
// premultiplied ARGB overlay (the blend then treats it like any rendered layer).

import CAss
import CPangoCairo
import Glibc
import WatermarkModel

/// Owns a libass library, renderer and track. Not thread-safe: one streaming thread uses it.
package final class SubtitleRenderer: @unchecked Sendable {
    private let ass: AssLibrary
    private let library: OpaquePointer
    private let renderer: OpaquePointer
    private var track: OpaquePointer?
    private let document: SubtitleDocument
    private let style: SubtitleStyle
    private var size = (width: 0, height: 0)
    private var fontsSet = false
    private let sink: MessageSink

    /// libass's messages at `level` (0 = fatal … 7 = debug).
    package typealias Log = @Sendable (_ level: Int, _ message: String) -> Void

    /// What libass's callback is handed: the log, behind a C struct of stable address.
    final class MessageSink {
        let log: Log
        let c = UnsafeMutablePointer<WMAssMessageSink>.allocate(capacity: 1)
        init(_ log: @escaping Log) {
            self.log = log
            c.initialize(to: WMAssMessageSink(log: subtitleMessage, context: nil))
            c.pointee.context = Unmanaged.passUnretained(self).toOpaque()
        }
        deinit { c.deallocate() }
    }

    /// `fontsDirectory`: fonts to use beside the system's (a Matroska file's attachments).
    package init(
        document: SubtitleDocument, style: SubtitleStyle, fontsDirectory: String? = nil, log: @escaping Log
    ) throws(SubtitleUnavailable) {
        let ass = try AssLibrary.shared.get()
        guard let library = ass.libraryInit() else { throw SubtitleUnavailable(reason: "libass could not start") }
        // Messages go to the log from the start (libass's own default prints to stderr).
        let sink = MessageSink(log)
        ass.setMessageCallback(library, wm_ass_message_callback(), sink.c)
        guard let renderer = withExtendedLifetime(sink, { ass.rendererInit(library) }) else {
            // The sink outlives the library, which may still call it while it is done.
            withExtendedLifetime(sink) { ass.libraryDone(library) }
            throw SubtitleUnavailable(reason: "libass could not make a renderer (no FreeType or fontconfig?)")
        }
        self.ass = ass
        self.library = library
        self.renderer = renderer
        self.document = document
        self.style = style
        self.sink = sink
        // Fonts embedded in a script's [Fonts] section, and a directory of attachments.
        ass.setExtractFonts(library, 1)
        if let fontsDirectory { ass.setFontsDir(library, fontsDirectory) }
    }

    /// Why subtitles cannot be drawn on this machine (libass missing), or nil.
    package static var unavailable: SubtitleUnavailable? {
        if case .failure(let why) = AssLibrary.shared { return why }
        return nil
    }

    deinit {
        if let track { ass.freeTrack(track) }
        ass.rendererDone(renderer)
        ass.libraryDone(library)
    }

    /// Reads the document into a track made for `width`×`height` (SRT and WebVTT get a
    /// header whose PlayRes is the frame size; an ASS script scales from its own).
    private func makeTrack(width: Int, height: Int) -> OpaquePointer? {
        if let track { ass.freeTrack(track) }
        track = nil
        if document.format == .ass {
            var bytes = Array(document.script.utf8CString)
            return bytes.withUnsafeMutableBufferPointer {
                ass.readMemory(library, $0.baseAddress, $0.count - 1, nil)
            }
        }
        guard let t = ass.newTrack(library) else { return nil }
        var header = Array(style.header(width: width, height: height).utf8CString)
        header.withUnsafeMutableBufferPointer { ass.processCodecPrivate(t, $0.baseAddress, Int32($0.count - 1)) }
        for (order, cue) in document.cues.enumerated() {
            // Matroska's form of an event: ReadOrder, Layer, Style, Name, MarginL, MarginR, MarginV, Effect, Text.
            var chunk = Array("\(order),0,Default,,0,0,0,,\(cue.text)".utf8CString)
            chunk.withUnsafeMutableBufferPointer {
                ass.processChunk(t, $0.baseAddress, Int32($0.count - 1), cue.start, max(0, cue.end - cue.start))
            }
        }
        return t
    }

    /// The overlay at `milliseconds` (of the document's time) in a `width`×`height` frame,
    /// and whether it differs from the previous call's (when not, the caller keeps the one it
    /// has: nothing is composited). nil: nothing on screen.
    package func render(at milliseconds: Int64, width: Int, height: Int) -> (changed: Bool, overlay: RenderedOverlay?) {
        var forced = false
        // A track libass would not read is not read again until the size changes.
        if size.width != width || size.height != height {
            size = (width, height)
            ass.setFrameSize(renderer, Int32(clamping: width), Int32(clamping: height))
            ass.setStorageSize(renderer, Int32(clamping: width), Int32(clamping: height))
            track = makeTrack(width: width, height: height)
            if !fontsSet {
                // After the first track is read, so that the fonts a script embeds are among
                // them; fontconfig finds the families the styles name, or the closest it has.
                ass.setFonts(renderer, nil, "sans-serif", 1, nil, 1)
                fontsSet = true
            }
            forced = true
        }
        guard let track else { return (forced, nil) }
        var change: Int32 = 0
        let images = ass.renderFrame(renderer, track, milliseconds, &change)
        if change == 0 && !forced { return (false, nil) }
        return (true, Self.composite(images, width: width, height: height))
    }

    /// libass's bitmaps (each one colour with an alpha mask, later ones over earlier ones)
    /// composited into premultiplied ARGB over their bounding box inside the frame.
    static func composite(_ first: UnsafeMutablePointer<ASS_Image>?, width: Int, height: Int) -> RenderedOverlay? {
        var minX = Int.max, minY = Int.max, maxX = Int.min, maxY = Int.min
        var image = first
        while let i = image {
            let x0 = max(0, Int(i.pointee.dst_x)), y0 = max(0, Int(i.pointee.dst_y))
            let x1 = min(width, Int(i.pointee.dst_x) + Int(i.pointee.w))
            let y1 = min(height, Int(i.pointee.dst_y) + Int(i.pointee.h))
            if x1 > x0, y1 > y0, i.pointee.bitmap != nil, (i.pointee.color & 0xFF) != 0xFF {
                (minX, minY, maxX, maxY) = (min(minX, x0), min(minY, y0), max(maxX, x1), max(maxY, y1))
            }
            image = i.pointee.next
        }
        guard maxX > minX, maxY > minY else { return nil }
        let rect = PixelRect(x: minX, y: minY, width: maxX - minX, height: maxY - minY)
        var pixels = [UInt32](repeating: 0, count: rect.width * rect.height)
        pixels.withUnsafeMutableBufferPointer { out in
            var image = first
            while let i = image {
                image = i.pointee.next
                guard let bitmap = i.pointee.bitmap else { continue }
                let color = i.pointee.color
                let alpha = 255 - UInt32(color & 0xFF)
                if alpha == 0 { continue }
                let r = color >> 24, g = (color >> 16) & 0xFF, b = (color >> 8) & 0xFF
                let dx = Int(i.pointee.dst_x), dy = Int(i.pointee.dst_y), stride = Int(i.pointee.stride)
                // Clipped to the box (which is inside the frame); an image outside it is skipped.
                let x0 = max(minX, dx), x1 = min(maxX, dx + Int(i.pointee.w))
                let y0 = max(minY, dy), y1 = min(maxY, dy + Int(i.pointee.h))
                guard x0 < x1, y0 < y1 else { continue }
                let xs = x0..<x1, ys = y0..<y1
                for y in ys {
                    let src = bitmap + (y - dy) * stride - dx
                    let row = (y - minY) * rect.width - minX
                    for x in xs {
                        let k = (UInt32(src[x]) * alpha + 127) / 255
                        if k == 0 { continue }
                        let d = out[row + x]
                        let inv = 255 - k
                        func mix(_ s: UInt32, _ shift: UInt32) -> UInt32 {
                            (s * k + ((d >> shift) & 0xFF) * inv + 127) / 255
                        }
                        out[row + x] = mix(255, 24) << 24 | mix(r, 16) << 16 | mix(g, 8) << 8 | mix(b, 0)
                    }
                }
            }
        }
        return RenderedOverlay(rect: rect, pixels: pixels)
    }
}

extension SubtitleStyle {
    /// The layer's text properties for SRT and WebVTT cues in a `frameWidth`×`frameHeight`
    /// frame: its font's family, weight and slant, line height, colours, outline and box;
    /// bottom centre at the layer's vertical margin.
    package init(layer style: OverlayStyle, frameWidth: Int, frameHeight: Int) {
        let desc = pango_font_description_from_string(style.fontDesc)
        defer { pango_font_description_free(desc) }
        let family = pango_font_description_get_family(desc).map { String(cString: $0) } ?? "Sans"
        let bold = pango_font_description_get_weight(desc).rawValue >= PANGO_WEIGHT_SEMIBOLD.rawValue
        let italic = pango_font_description_get_style(desc) != PANGO_STYLE_NORMAL
        let size = Double(PlacedBlock.linePixels(textSize: style.textSize, frameHeight: frameHeight))
        let outline = style.outlineWidth.isFinite ? min(max(style.outlineWidth, 0), 1) : 0
        self.init(
            family: family, bold: bold, italic: italic, size: size, color: style.color,
            outlineColor: style.outlineColor, outline: outline * size / 2, shadow: style.shadow,
            background: style.caption.background, padding: style.caption.padding * size,
            marginV: Int((style.placement.marginY * Double(frameHeight)).rounded()),
            marginH: Int((style.placement.marginX * Double(frameWidth)).rounded()))
    }
}

/// libass's messages, formatted, handed to the renderer's log.
private func subtitleMessage(_ level: Int32, _ text: UnsafePointer<CChar>?, _ context: UnsafeMutableRawPointer?) {
    guard let text, let context, level <= 2 else { return }
    let message = String(cString: text)
    // A family replaced by fontconfig is said once, by the element, when the file is read.
    if message.hasPrefix("fontselect: Using default font family") { return }
    let sink = Unmanaged<SubtitleRenderer.MessageSink>.fromOpaque(context).takeUnretainedValue()
    sink.log(Int(level), message)
}
