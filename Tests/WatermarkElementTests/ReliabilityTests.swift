import CGStreamer
import CGstCheck
import CShim
import Foundation
import GstTestSupport
import Synchronization
import Testing
import WatermarkModel

@testable import WatermarkElement

/// Long-lived-process properties: no growth over many start/stop cycles, no crash or
/// deadlock when properties change from several threads during state changes, every
/// fuzz seed replayed. `WM_RELIABILITY_SCALE` (default 1) multiplies the counts;
/// scripts/reliability runs them at full size. `WM_RELIABILITY_SLOWDOWN` (default 1)
/// multiplies the time limits and `WM_RELIABILITY_FRAMES` sets the frame count of the
/// threads test, for builds that run many times slower (ThreadSanitizer).
@Suite(.serialized) struct ReliabilityTests {
    static let environment = ProcessInfo.processInfo.environment
    static let scale = max(1, Int(environment["WM_RELIABILITY_SCALE"] ?? "1") ?? 1)
    static let slowdown = max(1, Double(environment["WM_RELIABILITY_SLOWDOWN"] ?? "1") ?? 1)
    static let threadFrames = max(1, Int(environment["WM_RELIABILITY_FRAMES"] ?? "") ?? 150 * scale)

    static func threeLayerConfig(_ name: String, text: String = "caption") -> String {
        TestEnv.write(
            name,
            """
            { "layers": [
              { "image": "\(TestEnv.root)/assets/logo.svg", "anchor": "top-left", "width": 0.1 },
              { "text": "\(text)", "anchor": "bottom-left", "start": 0, "end": 100, "fade-in": 0.1 },
              { "text": "{clock:%H:%M:%S}", "anchor": "top-right" }
            ] }
            """)
    }

    /// NULL → PLAYING → NULL again and again in one process (its own, so other tests'
    /// allocations do not count; stock GStreamer loading the plugin): resident memory
    /// stays flat after warm-up.
    @Test func cyclesDoNotGrowResidentMemory() throws {
        let config = Self.threeLayerConfig("rel-cycles.json")
        let dir = try #require(CLI.binary.map { ($0 as NSString).deletingLastPathComponent })
        let cycles = 200 * Self.scale
        let (status, log) = TestEnv.run(
            [
                "/usr/bin/python3", TestEnv.root + "/Tests/reliability/cycles.py", String(cycles),
                config, TestEnv.root + "/assets/logo.png",
            ],
            environment: ["GST_PLUGIN_PATH": dir, "GST_REGISTRY": TestEnv.path("cycles-registry.bin")])
        #expect(status == 0, "\(log)")
        func value(_ key: String) -> Int? {
            log.split(whereSeparator: { $0 == " " || $0 == "\n" }).first { $0.hasPrefix(key + "=") }
                .flatMap { Int($0.dropFirst(key.count + 1)) }
        }
        let before = try #require(value("rss_before_kb"), "\(log)"), after = try #require(value("rss_after_kb"))
        print(
            "reliability: \(cycles) NULL→PLAYING→NULL cycles, resident growth \(after - before) KB after warm-up, \(value("failures") ?? -1) failures"
        )
        #expect(value("failures") == 0)
        #expect(after - before <= 1024, "resident memory grew \(after - before) KB over \(cycles) cycles")
    }

    /// A setter holding the settings lock never holds up a frame: the streaming thread then
    /// uses the previous frame's settings instead of waiting (a waiting thread could be kept
    /// from the lock for good by setters in a tight loop: the mutex is not fair).
    @Test func aHeldSettingsLockDoesNotHoldUpFrames() throws {
        let h = Harness(element: "watermark", ["text": "first"])
        let caps = "video/x-raw,format=I420,width=320,height=240,framerate=30/1"
        #expect(h.pushTestFrame(caps: caps) != nil)
        let raw = try #require(
            UnsafeMutableRawPointer(h.element).assumingMemoryBound(to: GstWatermark.self).pointee.impl)
        let impl = Unmanaged<WatermarkImpl>.fromOpaque(raw).takeUnretainedValue()
        nonisolated(unsafe) let harness = h
        let pushed = Atomic<Bool>(false)
        let threads = ThreadGroup()
        var whileHeld = false
        impl.settings.withLock { _ in
            threads.start {
                if harness.pushTestFrame(caps: caps) != nil { pushed.store(true, ordering: .releasing) }
            }
            let deadline = Date().addingTimeInterval(10 * Self.slowdown)
            while !pushed.load(ordering: .acquiring) && Date() < deadline { usleep(1000) }
            whileHeld = pushed.load(ordering: .acquiring)
        }
        threads.join()
        let arrived = pushed.load(ordering: .acquiring)
        #expect(whileHeld, "the frame waited for the settings lock")
        #expect(arrived)
    }

    /// While 1080p frames stream, threads set text, opacity, anchor, image and config as
    /// fast as they can and the pipeline goes PLAYING ↔ PAUSED: every frame arrives.
    /// Then PLAYING ↔ READY cycles with the same threads: no deadlock, no error.
    @Test func propertiesFromManyThreadsDuringStateChanges() throws {
        _ = GstTest.ready
        let frames = Self.threadFrames
        let configs = [Self.threeLayerConfig("rel-a.json", text: "A"), Self.threeLayerConfig("rel-b.json", text: "B")]
        let images = [TestEnv.root + "/assets/logo.png", TestEnv.root + "/assets/logo.svg"]
        var error: UnsafeMutablePointer<GError>?
        let p = try #require(
            gst_parse_launch(
                """
                videotestsrc num-buffers=\(frames) ! video/x-raw,format=I420,width=1920,height=1080,framerate=30/1 ! \
                watermark name=w text=start ! fakesink name=sink
                """, &error))
        defer { gst_object_unref(p) }
        let bin = UnsafeMutableRawPointer(p).assumingMemoryBound(to: GstBin.self)
        let w = try #require(gst_bin_get_by_name(bin, "w"))
        defer { gst_object_unref(w) }
        let sink = try #require(gst_bin_get_by_name(bin, "sink"))
        let pad = try #require(gst_element_get_static_pad(sink, "sink"))
        gst_object_unref(sink)
        // Read while frames stream (progress), hence atomic.
        let counter = UnsafeMutablePointer<Atomic<Int>>.allocate(capacity: 1)
        counter.initialize(to: Atomic(0))
        defer { counter.deallocate() }
        _ = gst_pad_add_probe(
            pad, GST_PAD_PROBE_TYPE_BUFFER,
            { _, _, user in
                user?.assumingMemoryBound(to: Atomic<Int>.self).pointee.add(1, ordering: .relaxed)
                return GST_PAD_PROBE_OK
            }, counter, nil)
        gst_object_unref(pad)

        let stop = Atomic<Bool>(false)
        let sets = Atomic<Int>(0)
        let object = UInt(bitPattern: gst_watermark_as_object(w))
        let setters: [@Sendable (Int) -> (String, String)] = [
            { i in ("text", "viewers \(i)") },
            { i in ("opacity", String(Double(i % 100) / 100)) },
            { i in ("anchor", ["top-left", "center", "bottom-right"][i % 3]) },
            { i in ("image", images[i % 2]) },
            { i in ("config", configs[i % 2]) },
        ]
        let threads = ThreadGroup()
        for setter in setters {
            threads.start {
                let obj = UnsafeMutablePointer<GObject>(bitPattern: object)
                var i = 0
                while !stop.load(ordering: .relaxed) {
                    let (name, value) = setter(i)
                    gst_util_set_object_arg(obj, name, value)
                    i += 1
                    sets.add(1, ordering: .relaxed)
                    // Each image/config set keeps the element's loader thread decoding (the latest
                    // value, one at a time): pace those a little (more under a sanitizer).
                    if name == "image" || name == "config" { usleep(UInt32(2000 * Self.slowdown)) }
                }
            }
        }
        defer {
            stop.store(true, ordering: .relaxed)
            threads.join()
        }

        // Phase 1: PLAYING ↔ PAUSED until EOS; every frame must arrive. What is checked is
        // progress, not speed (a debug build re-renders every layer each frame here, and
        // shares the machine with the other suites): it fails when no frame arrives for a
        // minute.
        let bus = gst_element_get_bus(p)
        defer { gst_object_unref(bus) }
        gst_element_set_state(p, GST_STATE_PLAYING)
        var eos = false, failed: String?
        let stallLimit = 60 * Self.slowdown
        var lastCount = 0, lastProgress = Date()
        var playing = true
        while !eos && failed == nil {
            if let msg = gst_bus_timed_pop_filtered(
                bus, 50 * 1_000_000, GstMessageType(rawValue: GST_MESSAGE_EOS.rawValue | GST_MESSAGE_ERROR.rawValue))
            {
                if msg.pointee.type == GST_MESSAGE_EOS { eos = true } else { failed = "error message" }
                gst_message_unref(msg)
                continue
            }
            if counter.pointee.load(ordering: .relaxed) != lastCount {
                lastCount = counter.pointee.load(ordering: .relaxed)
                lastProgress = Date()
            } else if Date().timeIntervalSince(lastProgress) > stallLimit {
                break
            }
            playing.toggle()
            #expect(
                gst_element_set_state(p, playing ? GST_STATE_PLAYING : GST_STATE_PAUSED) != GST_STATE_CHANGE_FAILURE)
            // Let the change settle (up to a second) before the next one: a new target set
            // while GstBin still finishes an asynchronous change can leave the sink waiting
            // in preroll for good on a loaded machine (seen under ThreadSanitizer, before and
            // after the element's own changes), which is GStreamer's state machine, not the
            // element this tests.
            _ = gst_element_get_state(p, nil, nil, GstClockTime(Self.slowdown * 1e9))
        }
        #expect(failed == nil)
        #expect(eos, "no EOS: no frame for \(stallLimit) s after frame \(lastCount)")
        #expect(
            counter.pointee.load(ordering: .relaxed) == frames,
            "\(counter.pointee.load(ordering: .relaxed)) of \(frames) frames arrived")

        // Phase 2: PLAYING ↔ READY while the setters keep going: every change completes.
        for _ in 0..<(10 * Self.scale) {
            #expect(gst_element_set_state(p, GST_STATE_READY) != GST_STATE_CHANGE_FAILURE)
            #expect(
                gst_element_get_state(p, nil, nil, GstClockTime(10 * Self.slowdown * 1e9)) != GST_STATE_CHANGE_FAILURE)
            gst_element_set_state(p, GST_STATE_PLAYING)
            #expect(
                gst_element_get_state(p, nil, nil, GstClockTime(10 * Self.slowdown * 1e9)) != GST_STATE_CHANGE_ASYNC,
                "stuck going to PLAYING")
            usleep(30_000)
        }
        gst_element_set_state(p, GST_STATE_NULL)
        print(
            "reliability: \(frames) frames through PLAYING↔PAUSED and \(10 * Self.scale) READY cycles, \(sets.load(ordering: .relaxed)) property sets from \(setters.count) threads"
        )
    }

    /// Every seed and regression input of every fuzz target, replayed through the plain
    /// build of the fuzz harness.
    @Test(arguments: [
        "config", "template", "color", "blend", "data", "gpmf", "mp4", "gpx", "dji", "mask", "forensic", "subtitles",
    ])
    func fuzzCorpusReplays(target: String) throws {
        let bin = try #require(CLI.binary.map { ($0 as NSString).deletingLastPathComponent + "/wm-fuzz" })
        let (status, log) = TestEnv.run([bin, target, TestEnv.root + "/Fuzz/corpus/" + target])
        #expect(status == 0, "\(log)")
        #expect(log.contains("no crash"))
    }
}

/// Image and config loads while playing: one at a time, only the latest of each kind.
struct LoaderThreadTests {
    @Test func onlyTheLatestLoadOfAKindRunsAndOneAtATime() throws {
        let retains = Atomic<Int>(0), releases = Atomic<Int>(0), active = Atomic<Int>(0), most = Atomic<Int>(0)
        let ran = Locked<[String]>([])
        let gate = Locked(false)
        let loads = LoaderThread(
            retain: { retains.add(1, ordering: .relaxed) }, release: { releases.add(1, ordering: .relaxed) })
        func job(_ name: String, blocking: Bool = false) -> @Sendable () -> Void {
            {
                let now = active.add(1, ordering: .relaxed).newValue
                most.max(now, ordering: .relaxed)
                if blocking { gate.withLock(when: { $0 }) { _, _ in } }
                ran.withLock { $0.append(name) }
                active.subtract(1, ordering: .relaxed)
            }
        }
        loads.submit("image", job("image 0", blocking: true))
        var polls = 0
        while active.load(ordering: .relaxed) == 0 && polls < 30_000 {
            usleep(1000)
            polls += 1
        }
        // "image 0" is running: what follows queues behind it.
        for i in 1...50 { loads.submit("image", job("image \(i)")) }
        loads.submit("config", job("config"))
        for i in 51...100 { loads.submit("image", job("image \(i)")) }
        gate.withLock { $0 = true }
        gate.broadcast()
        polls = 0
        while releases.load(ordering: .relaxed) == 0 && polls < 30_000 {
            usleep(10_000)
            polls += 1
        }
        #expect(ran.withLock { $0 } == ["image 0", "config", "image 100"])
        #expect(most.load(ordering: .relaxed) == 1)
        #expect(retains.load(ordering: .relaxed) == 1 && releases.load(ordering: .relaxed) == 1)

        // Idle again: the next load starts a thread of its own.
        loads.submit("image", job("image 101"))
        polls = 0
        while releases.load(ordering: .relaxed) < 2 && polls < 30_000 {
            usleep(10_000)
            polls += 1
        }
        #expect(ran.withLock { $0.last } == "image 101")
        #expect(retains.load(ordering: .relaxed) == 2 && releases.load(ordering: .relaxed) == 2)
    }
}
