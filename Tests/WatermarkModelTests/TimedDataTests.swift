import Testing
import WatermarkModel

/// The data-file reader and lookup: every expected value is worked out here from the rows
/// the test writes, never read back through the code under test.
@Suite struct TimedDataTests {
    static func table(_ text: String, file: String = "t.csv", time: String? = nil, step: Set<String> = [])
        throws(ConfigError) -> DataTable
    {
        try DataTable.parse(Array(text.utf8), file: file, timeColumn: time, step: step)
    }

    static func error(_ text: String, file: String = "t.csv", time: String? = nil) -> String? {
        do {
            _ = try table(text, file: file, time: time)
            return nil
        } catch {
            return error.description
        }
    }

    static func number(_ v: VariableValue?) -> Double? {
        if case .double(let d)? = v { return d }
        return nil
    }

    @Test(arguments: [0.0, 0.25, 1.0, 1.5, 2.9, 3.0, 10.0])
    func numbersAreInterpolatedLinearlyAndHeldAtTheEnds(t: Double) throws {
        let rows: [(Double, Double)] = [(0, 10), (1, 20), (3, 0)]
        let csv = "time,speed\n" + rows.map { "\($0.0),\($0.1)" }.joined(separator: "\n") + "\n"
        let data = TimedData(table: try Self.table(csv))
        let expected: Double
        if t >= 3 {
            expected = 0
        } else if let i = rows.indices.last(where: { rows[$0].0 <= t }) {
            let (t0, v0) = rows[i], (t1, v1) = rows[i + 1]
            expected = v0 + (v1 - v0) * (t - t0) / (t1 - t0)
        } else {
            expected = 10
        }
        let got = try #require(Self.number(data.value("speed", at: t)))
        #expect(abs(got - expected) < 1e-9)
        #expect(Self.number(data.value("speed", at: -5)) == 10)
    }

    @Test func steppedNumbersAndStringsHoldUntilTheNextRow() throws {
        let csv = "t,gear,driver\n0,1,Ana\n2,2,\"Lima, B.\"\n4,3,Cy\n"
        let data = TimedData(table: try Self.table(csv, step: ["gear"]))
        #expect(Self.number(data.value("gear", at: 1.99)) == 1)
        #expect(Self.number(data.value("gear", at: 2)) == 2)
        #expect(data.value("driver", at: 3.9) == .string("Lima, B."))
        #expect(data.value("driver", at: 1) == .string("Ana"))
        #expect(data.value("driver", at: 99) == .string("Cy"))
        #expect(data.value("none", at: 1) == nil)
    }

    @Test func anOffsetShiftsTheRowsLater() throws {
        let data = TimedData(table: try Self.table("time,v\n0,0\n10,100\n"), offset: 2.5)
        // Stream time 5 shows data time 2.5: a quarter of the way.
        #expect(Self.number(data.value("v", at: 5)) == 25)
    }

    @Test func isoTimesCountFromTheCreationTime() throws {
        let csv = """
            timestamp,temp
            2026-05-01T10:00:00Z,20
            2026-05-01T12:00:10+02:00,30
            2026-05-01T10:00:20.000Z,40
            """
        let table = try Self.table(csv)
        #expect(table.absolute)
        // 12:00:10+02:00 is 10:00:10Z.
        let start = try #require(DataTime.iso8601("2026-05-01T10:00:00Z"))
        #expect(DataTime.iso8601("2026-05-01T12:00:10+02:00") == start + 10)
        let data = TimedData(table: table, origin: start - 5)
        // Stream time 10 is 10:00:05: halfway between 20 and 30.
        #expect(Self.number(data.value("temp", at: 10)) == 25)
        // With no creation time, the first row is the stream's start.
        #expect(Self.number(TimedData(table: table).value("temp", at: 15)) == 35)
    }

    @Test func clockTimesAreSeconds() throws {
        let data = TimedData(table: try Self.table("time,lap\n0:58.5,1\n1:02:03.25,2\n"))
        #expect(data.table.firstTime == 58.5)
        #expect(Self.number(data.value("lap", at: 3723.25)) == 2)
    }

    @Test func jsonLinesWithNestedObjectsAndMissingFields() throws {
        let jsonl = """
            {"t": 0, "gps": {"speed": 4}, "note": "go"}
            {"t": 1, "gps": {"speed": 8}}

            {"t": 2, "gps": {"speed": 2}, "note": "stop"}
            """
        let table = try Self.table(jsonl, file: "t.jsonl")
        #expect(table.names == ["gps.speed", "note"])
        let data = TimedData(table: table)
        #expect(Self.number(data.value("gps.speed", at: 1.5)) == 5)
        // A missing cell is no sample: the strings hold from the row that has one.
        #expect(data.value("note", at: 1.5) == .string("go"))
    }

    @Test func aColumnOfNumbersWithOneWordIsText() throws {
        let table = try Self.table("time,speed\n0,1\n1,fast\n")
        #expect(table["speed"]?.isNumeric == false)
        let e = try #require(table.check(field: "speed", numeric: true, usedBy: "the text's {data:speed:…}"))
        #expect(
            e.description == #"t.csv:3:3: "speed": "fast" is not a number (the text's {data:speed:…} needs numbers)"#)
        #expect(table.check(field: "speed", numeric: false, usedBy: "x") == nil)
        let missing = try #require(table.check(field: "sped", numeric: false, usedBy: "the text's {data:sped}"))
        #expect(missing.description == #"t.csv: the text's {data:sped}: no field "sped" (fields: speed)"#)
    }

    @Test(arguments: [
        ("time,a\n0,1\n1,2,3\n", "t.csv:3:5: 3 cells; the header has 2"),
        (
            "a,b\n0,1\n",
            "t.csv:1:1: no time column (one named time, t, timestamp, seconds, elapsed, or name it; columns: a, b)"
        ),
        (
            "time,a\nsoon,1\n",
            #"t.csv:2:1: "time": "soon" is not a time (seconds, [h:]mm:ss.fff or ISO 8601 like 2026-05-01T10:00:00Z)"#
        ),
        (
            "time,a\n0,1\n2026-05-01T10:00:00Z,2\n",
            #"t.csv:3:1: "time": "2026-05-01T10:00:00Z" mixes a date and time with the seconds of the rows above"#
        ),
        ("time,a\n0,\"open\n", "t.csv:2:3: a quote that is not closed"),
        ("time,a\n0,\"x\"y\n", #"t.csv:2:6: text after a quoted cell (a quote inside a cell is written "")"#),
        ("time,a,a\n", #"t.csv:1:8: column "a" twice"#),
        ("time,a\n", "t.csv:1:1: no rows of data"),
        ("", "t.csv:1:1: empty (expected a header row)"),
        ("time,a\n,1\n", #"t.csv:2:1: "time": row without a time"#),
    ])
    func badCSVFilesSayWhereAndWhat(text: String, message: String) {
        #expect(Self.error(text) == message)
    }

    @Test(arguments: [
        (
            #"{"t": 0, "a": 1}\#n{"t": 1, "a": [1]}"#,
            #"t.jsonl:2:15: "a": an array (a field is a number or a string; objects give outer.inner names)"#
        ),
        (#"{"t": 0, "a": 1}\#n{"t": 1 "a": 2}"#, #"t.jsonl:2:9: expected ',' or '}', found '"'"#),
        (#"{"t": 0}\#n[1]"#, "t.jsonl:2:1: expected an object, found an array"),
    ])
    func badJSONLinesSayWhereAndWhat(text: String, message: String) {
        #expect(Self.error(text, file: "t.jsonl") == message)
    }

    @Test func aNamedTimeColumnAndSemicolons() throws {
        let table = try Self.table("when;v\n0;1\n4;9\n", time: "when")
        #expect(table.timeColumn == "when")
        #expect(Self.number(TimedData(table: table).value("v", at: 1)) == 3)
        #expect(Self.error("a,b\n0,1\n", time: "when") == "t.csv:1:1: no time column \"when\" (columns: a, b)")
    }

    @Test func templatesNameTheirDataFields() {
        let t = TextTemplate("{data:speed:%.0f} km/h {data:Lap time} {data:speed}")
        #expect(t.dataFields.map(\.name) == ["speed", "Lap time"])
        #expect(t.dataFields.map(\.numeric) == [true, false])
        // A format that is neither one number conversion nor strftime leaves the placeholder as written.
        #expect(TextTemplate("{data:a:%.1s}").isStatic)
        #expect(TextTemplate("{data:a:%H:%M}").dataFields.map(\.numeric) == [true])
        var clock = FrameClock(streamTime: 0.5)
        clock.data = TimedData(table: try! Self.table("time,speed,Lap time\n0,0,1:01\n1,100,1:02\n"))
        #expect(t.expand(clock) == "50 km/h 1:01 50")
    }

    @Test(arguments: [(-10.0, -135.0), (0.0, -135.0), (50.0, -67.5), (200.0, 135.0), (260.0, 135.0)])
    func bindingsMapLinearlyAndClamp(value: Double, rotation: Double) {
        let b = Binding(field: .rotation, value: .data("speed"), from: (0, 200), to: (-135, 135))
        #expect(b.map(value) == rotation)
    }

    @Test func aBoundLayerTakesItsValuesFromTheFrame() throws {
        let doc = try LayerConfig.parseDocument(
            Array(
                #"""
                { "layers": [ { "image": "n.svg", "bind": {
                    "rotation": { "value": "var:heading" },
                    "opacity": { "value": "var:progress", "from": [0, 100], "to": [0, 1] },
                    "x": { "value": "data:x", "from": [0, 10], "to": [0.1, 0.9] } } } ],
                  "data": { "file": "d.csv", "offset": 1, "step": ["x"] } }
                """#.utf8), file: "c.json", directory: "/cfg")
        #expect(doc.data == DataSpec(file: "/cfg/d.csv", offset: 1, step: ["x"]))
        let layer = try #require(doc.layers.first)
        #expect(layer.moves)
        var clock = FrameClock(streamTime: 3)
        clock.variables = Variables(["heading": .int(90), "progress": .double(25)])
        clock.data = TimedData(table: try Self.table("time,x\n0,0\n10,10\n"), offset: 1)
        let (style, opacity) = layer.state(clock)
        #expect(style.rotation == 90)
        #expect(opacity == 0.25)
        // Data time 2 of 10: a fifth of the way from 0.1 to 0.9.
        #expect(abs(style.placement.x - 0.26) < 1e-12)
        #expect(doc.dataUses.map(\.field) == ["x"])
    }

    @Test(arguments: [
        (
            #"{"rotation": {"value": "speed"}}"#,
            #"c.json:1:61: layer 0: "bind.rotation.value": expected "var:NAME" or "data:FIELD""#
        ),
        (
            #"{"width": {"value": "var:a"}}"#,
            #"c.json:1:48: layer 0: "bind.width": not a field that can be bound (x, y, opacity, scale, rotation)"#
        ),
        (#"{"x": {"value": "var:a", "to": [0, 2]}}"#, #"c.json:1:69: layer 0: "bind.x.to": outside x's range 0…1"#),
        (
            #"{"x": {"value": "var:a", "from": [3, 3]}}"#,
            #"c.json:1:71: layer 0: "bind.x.from": an empty range (3 to itself)"#
        ),
        (#"{"x": {"from": [0, 1]}}"#, #"c.json:1:44: layer 0: "bind.x": missing "value""#),
    ])
    func badBindingsSayWhereAndWhat(bind: String, message: String) {
        // The bind object starts at column 39.
        let json = #"{ "layers": [ { "text": "a", "bind": \#(bind) } ] }"#
        do {
            _ = try LayerConfig.parseDocument(Array(json.utf8), file: "c.json", directory: "/")
            Issue.record("no error for \(bind)")
        } catch {
            #expect(error.description == message)
        }
    }
}
