import Testing
import WatermarkCLI
import WatermarkModel

/// `--mask` (repeatable) and its companions: checked before anything runs, handed to the
/// element as its mask properties.
@Suite struct MaskOptionTests {
    @Test func masksBecomeTheElementsProperties() throws {
        let overlay = try DataOptionTests.overlay([
            "--mask", "0.1,0.1,0.2,0.2", "--mask", "0.5,0.5 0.9,0.6 0.7,0.9", "--mask-fill", "pixelate",
            "--mask-cell", "0.05", "--mask-color", "#FF0000",
        ])
        let text = overlay.step.text
        #expect(text.contains(#"mask="0.1,0.1,0.2,0.2;0.5,0.5 0.9,0.6 0.7,0.9""#), "\(text)")
        #expect(text.contains(#"mask-fill="pixelate""#), "\(text)")
        #expect(text.contains(#"mask-cell="0.05""#), "\(text)")
        #expect(text.contains(#"mask-color="0xFFFF0000""#), "\(text)")
    }

    @Test func aBadMaskIsAOneLineErrorWithItsPlace() {
        #expect {
            _ = try DataOptionTests.overlay(["--mask", "0,0,1,1", "--mask", "0.2,0.2 0.4"])
        } throws: { error in
            (error as? UsageError)?.message
                == "--mask \"0,0,1,1;0.2,0.2 0.4\": at character 9: a polygon needs three or more points x,y"
        }
        #expect(throws: UsageError.self) { _ = try DataOptionTests.overlay(["--mask-fill", "smudge"]) }
        #expect(throws: UsageError.self) { _ = try DataOptionTests.overlay(["--mask-cell", "2"]) }
    }
}
