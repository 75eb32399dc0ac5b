import Testing
import WatermarkCLI
import WatermarkModel

/// `--filter` places a gst-launch fragment (a detector, a tracker) before the overlay, and the
/// `--roi-…` options follow what it finds.
@Suite struct FilterOptionTests {
    @Test func theFragmentGoesBeforeTheOverlayBetweenConverters() throws {
        let overlay = try DataOptionTests.overlay([
            "--filter", " cvtracker draw-rect=false object-initial-x=10 ", "--roi-fill", "blur", "--roi-label",
            "{roi:type} {roi:confidence:%.0f}%", "--roi-box-color", "#00FF00",
        ])
        #expect(overlay.filter == "cvtracker draw-rect=false object-initial-x=10")
        let chain = overlay.steps.map(\.text)
        #expect(chain.count == 4)
        #expect(chain.prefix(3) == ["videoconvert", "cvtracker draw-rect=false object-initial-x=10", "videoconvert"])
        let text = overlay.step.text
        #expect(text.hasPrefix("watermark "))
        #expect(text.contains(#"roi-fill="blur""#), "\(text)")
        #expect(text.contains(#"roi-label="{roi:type} {roi:confidence:%.0f}%""#), "\(text)")
        #expect(text.contains(#"roi-box-color="0xFF00FF00""#), "\(text)")
        // Without --filter the overlay is the element alone.
        #expect(try DataOptionTests.overlay(["--text", "x"]).steps.map(\.factory) == ["watermark"])
    }

    @Test func aBadFragmentIsAOneLineErrorNamingIt() {
        #expect {
            _ = try DataOptionTests.overlay(["--filter", "nosuchelement"])
        } throws: { error in
            (error as? UsageError)?.message == "--filter \"nosuchelement\": no element \"nosuchelement\""
        }
        #expect {
            _ = try DataOptionTests.overlay(["--filter", "videobalance bogus=1"])
        } throws: { error in
            (error as? UsageError)?.message.contains("no property \"bogus\" in element \"videobalance\"") ?? false
        }
        #expect(throws: UsageError.self) { _ = try DataOptionTests.overlay(["--filter", "  "]) }
        #expect(throws: UsageError.self) { _ = try DataOptionTests.overlay(["--roi-fill", "smudge"]) }
    }
}
