import TestSupport
import Testing
import WatermarkModel

@testable import WatermarkCLI

/// A batch's rows become items (input, output, overlay) or the first problem, positioned,
/// before anything runs.
@Suite struct BatchPlanTests {
    static func common(_ values: [String: PropertyValue] = [:], output: String? = nil, dir: String? = "/tmp")
        -> BatchPlan.Common
    {
        BatchPlan.Common(values: values, config: nil, outputTemplate: output, outputDir: dir)
    }

    @Test func inputsGetNamedOutputsAndTheirOwnTexts() throws {
        let plan = try BatchPlan(
            inputs: ["clips/a.mov", "/media/b.MP4"],
            common: Self.common(["text": .string("{stem} #{index}")], output: "{stem}-{index}.mkv"))
        #expect(plan.items.map(\.output) == ["/tmp/a-1.mkv", "/tmp/b-2.mkv"])
        #expect(plan.items.map(\.input) == ["clips/a.mov", "/media/b.MP4"])
        let texts = plan.items.map { item in item.overlay.properties.first { $0.property.name == "text" }?.value }
        #expect(texts == [.string("a #1"), .string("b #2")])
        #expect(plan.items.map(\.origin) == ["argument 1", "argument 2"])
    }

    @Test func theDefaultNameIsTheStemAsMP4() throws {
        let plan = try BatchPlan(inputs: ["x/talk.mov"], common: Self.common())
        #expect(plan.items.map(\.output) == ["/tmp/talk.mp4"])
    }

    @Test(arguments: [
        (["a.mov", "b/a.mov"], "x.mp4", "argument 2: output /tmp/x.mp4 is also the output of argument 1"),
        (["a.mov"], "{stem}.avi", "argument 1: /tmp/a.avi: unknown container"),
        (["a.mov"], "{nope}.mp4", "unknown placeholder {nope}"),
    ])
    func problemsNameTheRow(inputs: [String], output: String, message: String) {
        #expect {
            _ = try BatchPlan(inputs: inputs, common: Self.common(output: output))
        } throws: { error in
            (error as? UsageError)?.message.contains(message) == true
        }
    }

    @Test func anOutputFolderOrNameIsRequired() {
        #expect(throws: UsageError.self) { try BatchPlan(inputs: ["a.mov"], common: Self.common(dir: nil)) }
    }

    @Test func anOutputCannotBeItsInput() {
        #expect(throws: UsageError.self) {
            try BatchPlan(inputs: ["/tmp/a.mp4"], common: Self.common(output: "a.mp4"))
        }
    }

    /// Masks per row: the same recording for several audiences, each with its own regions.
    @Test func maskColumnsGivePerRowMasks() throws {
        let manifest = TestEnv.write(
            "batch-mask.csv",
            "input,output,mask,mask-fill\na.mp4,a-out.mp4,\"0.1,0.1,0.2,0.2\",pixelate\nb.mp4,b-out.mp4,\"0,0 1,0 0.5,1\",\n"
        )
        let dir = TestEnv.path("")
        let plan = try BatchPlan(manifest: manifest, common: Self.common(dir: dir))
        func value(_ item: BatchItem, _ name: String) -> PropertyValue? {
            item.overlay.properties.first { $0.property.name == name }?.value
        }
        #expect(value(plan.items[0], "mask") == .string("0.1,0.1,0.2,0.2"))
        #expect(value(plan.items[0], "mask-fill") == .choice(MaskFill.pixelate.rawValue))
        #expect(value(plan.items[1], "mask") == .string("0,0 1,0 0.5,1"))
        let bad = TestEnv.write("batch-mask-bad.csv", "input,output,mask\na.mp4,a-out.mp4,\"0.1,0.1,x,0.2\"\n")
        #expect {
            _ = try BatchPlan(manifest: bad, common: Self.common(dir: dir))
        } throws: { error in
            (error as? UsageError)?.message.contains(
                #"batch-mask-bad.csv:2: column "mask": at character 9: "x" is not a number"#)
                == true
        }
    }
}
