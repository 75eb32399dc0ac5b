import WatermarkRender

/// Whether a file is an image the element can draw, for callers that check files before
/// they hand them to it (the CLI's control API).
package enum ImageCheck {
    /// nil when the file at `path` decodes (PNG, JPEG, SVG, GIF, WebP, APNG), else the reason
    /// it does not, as the element would report it.
    package static func problem(at path: String) -> String? {
        do {
            _ = try DecodedImage.shared(path: path)
            return nil
        } catch {
            return error.description
        }
    }
}
