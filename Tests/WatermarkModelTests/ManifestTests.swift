import Testing
import WatermarkModel

struct ManifestTests {
    func table(_ text: String, file: String = "m.csv") throws(ManifestError) -> ManifestTable {
        try ManifestTable.parse(Array(text.utf8), file: file)
    }

    @Test func csvWithQuotesCommasNewlinesAndCRLF() throws {
        let t = try table(
            "\u{FEFF}input,text,student_id\r\n"
                + "a.mp4,\"Licensed to \"\"Ana\"\", Lisbon\",7\r\n"
                + "\r\n"
                + "b.mov,\"two\nlines\",\n"
                + "c.mkv,,9")
        #expect(t.columns == ["input", "text", "student_id"])
        #expect(t.rows.count == 3)
        #expect(
            t.rows[0]
                == ManifestRow(
                    line: 2, values: ["input": "a.mp4", "text": "Licensed to \"Ana\", Lisbon", "student_id": "7"]))
        // An empty cell is no value (the command line's stays).
        #expect(t.rows[1] == ManifestRow(line: 4, values: ["input": "b.mov", "text": "two\nlines"]))
        // The record after a quoted line break starts on the right line.
        #expect(t.rows[2] == ManifestRow(line: 6, values: ["input": "c.mkv", "student_id": "9"]))
    }

    @Test(arguments: [
        ("input,text\na.mp4\n", "m.csv:2: 1 fields, the header has 2"),
        ("input,text\na.mp4,\"open\n", "m.csv:2: a quoted field is not closed"),
        (
            "input,text\na.mp4,x\"y\n",
            "m.csv:2: a double quote inside an unquoted field (quote the whole field and double the quote)"
        ),
        ("input,input\n", "m.csv:1: column \"input\" appears twice"),
        ("input,,text\n", "m.csv:1: a column has no name"),
        ("", "m.csv: is empty"),
    ])
    func csvErrorsArePositioned(text: String, message: String) {
        #expect(throws: ManifestError.self) { try table(text) }
        do {
            _ = try table(text)
        } catch {
            #expect(error.description == message)
        }
    }

    @Test func jsonLinesTakeStringsNumbersAndBooleans() throws {
        let t = try table(
            """
            {"input": "a.mp4", "opacity": 0.5, "shadow": true}

            {"input": "b.mp4", "text": null, "student_id": 12}
            """, file: "m.jsonl")
        #expect(t.columns == ["input", "opacity", "shadow", "text", "student_id"])
        #expect(t.rows[0] == ManifestRow(line: 1, values: ["input": "a.mp4", "opacity": "0.5", "shadow": "true"]))
        #expect(t.rows[1] == ManifestRow(line: 3, values: ["input": "b.mp4", "student_id": "12"]))
    }

    @Test func jsonLinesErrorsArePositioned() {
        for (text, message) in [
            (
                "{\"input\": \"a\"}\n{\"input\": [1]}",
                "m.jsonl:2: column \"input\": must be a string, a number or a boolean, not an array"
            ),
            ("{\"input\": \"a\"}\n[1]", "m.jsonl:2: a line must be a JSON object, not an array"),
            ("{\"input\": \"a\",}", "m.jsonl:1: column 15: "),
        ] {
            do {
                _ = try table(text, file: "m.jsonl")
                Issue.record("no error for \(text)")
            } catch {
                #expect(
                    message.hasSuffix(": ") ? error.description.hasPrefix(message) : error.description == message,
                    "\(error)")
            }
        }
    }

    @Test func placeholdersFillNamesAndKeepTheElementsOwn() throws {
        var values = BatchPlaceholders.fileValues(path: "clips/Lecture 1.final.mov", index: 3)
        #expect(values == ["filename": "Lecture 1.final.mov", "stem": "Lecture 1.final", "ext": "mov", "index": "3"])
        values["student_id"] = "s42"
        #expect(try BatchPlaceholders.expandName("{stem}-{student_id}.mp4", values).get() == "Lecture 1.final-s42.mp4")
        #expect(try BatchPlaceholders.expandName("{{x}}-{index}.mkv", values).get() == "{x}-3.mkv")
        if case .failure(let e) = BatchPlaceholders.expandName("{stem}-{studentid}.mp4", values) {
            #expect(e.name == "studentid")
        } else {
            Issue.record("an unknown placeholder in a name must fail")
        }
        // Texts keep what the element expands per frame, and its literal braces.
        #expect(
            BatchPlaceholders.expand("Licensed to {student_id} {clock} {{stem}} {stem}", values)
                == "Licensed to s42 {clock} {{stem}} Lecture 1.final")
        #expect(BatchPlaceholders.names(in: "{a} {{b}} {c:x}") == ["a", "c:x"])
        #expect(BatchPlaceholders.fileValues(path: ".hidden", index: 1)["stem"] == ".hidden")
    }

    @Test func jsonTextQuotesWhatJSONNeeds() throws {
        let s = "a\"b\\c\nd\u{1}é"
        #expect(JSONText.quoted(s) == "\"a\\\"b\\\\c\\nd\\u0001é\"")
        let node = try JSONReader.parse(JSONText.object([("k", JSONText.quoted(s)), ("n", "1")]))
        guard case .object(let m) = node.value, case .string(let back) = m[0].value.value else {
            Issue.record("not an object")
            return
        }
        #expect(back == s)
    }
}
