import Testing
import WatermarkModel

/// Subtitle files recognised by their content, SRT and WebVTT cues with their markup in ASS's
/// terms, ASS scripts checked, and every fault positioned as FILE:LINE.
struct SubtitleParserTests {
    static func parse(_ text: String, file: String = "film.srt") throws(SubtitleError) -> SubtitleDocument {
        try SubtitleParser.parse(Array(text.utf8), file: file)
    }

    static func error(_ text: String, file: String = "film.srt") -> String {
        do {
            _ = try parse(text, file: file)
            return ""
        } catch {
            return error.description
        }
    }

    @Test func srtCuesWithTimesAndMarkup() throws {
        let d = try Self.parse(
            "\u{FEFF}1\r\n00:00:01,000 --> 00:00:02,500\r\nHello <i>there</i>\r\n<b>bold</b> <u>u</u>\r\n\r\n"
                + "2\n00:01:02.25 --> 01:00:00,000 X1:10 X2:20\n<font color=\"#FF8000\">orange</font> {\\an8}top\n\n3\n"
        )
        #expect(d.format == .srt)
        #expect(d.cues.count == 2)
        #expect(
            d.cues[0]
                == SubtitleCue(start: 1000, end: 2500, text: "Hello {\\i1}there{\\i0}\\N{\\b1}bold{\\b0} {\\u1}u{\\u0}")
        )
        #expect(d.cues[1].start == 62_250 && d.cues[1].end == 3_600_000)
        #expect(d.cues[1].text == "{\\c&H0080FF&}orange{\\c} {\\an8}top")
    }

    @Test func webvttCuesWithSettingsEntitiesAndVoiceTags() throws {
        let d = try Self.parse(
            """
            WEBVTT - a title
            Kind: captions

            NOTE a comment
            spanning lines

            STYLE
            ::cue { color: red }

            intro
            00:01.000 --> 00:02.000 align:start line:0
            <v Roger>Hi &amp; <c.loud>welcome</c> &lt;3</v>

            00:00:03.500 --> 00:00:04.000
            <i>bye</i> <00:00:03.750>now
            """, file: "film.vtt")
        #expect(d.format == .webvtt)
        #expect(d.cues.map(\.start) == [1000, 3500])
        #expect(d.cues[0].text == "Hi & welcome <3")
        #expect(d.cues[1].text == "{\\i1}bye{\\i0} now")
    }

    @Test func assScriptsAreKeptWholeWithTheirFonts() throws {
        let script = """
            [Script Info]
            ScriptType: v4.00+

            [V4+ Styles]
            Format: Name, Fontname, Fontsize, PrimaryColour
            Style: Default,DejaVu Sans,40,&H00FFFFFF
            Style: Sign,@Noto Serif CJK,30,&H0000FFFF

            [Fonts]
            fontname: a.ttf
            !!!!

            [Events]
            Format: Layer, Start, End, Style, Name, MarginL, MarginR, MarginV, Effect, Text
            Dialogue: 0,0:00:01.00,0:00:02.50,Default,,0,0,0,,Hello, {\\fnFancy Font\\b1}world
            Comment: 0,0:00:01.00,0:00:02.50,Default,,0,0,0,,not shown
            """
        let d = try Self.parse(script, file: "f.ass")
        #expect(d.format == .ass && d.script == script && d.eventCount == 1 && d.embeddedFonts == 1)
        #expect(d.fontFamilies == ["DejaVu Sans", "Noto Serif CJK", "Fancy Font"])
    }

    @Test func faultsArePositioned() {
        #expect(
            Self.error("1\n00:00:01,000 --> 00:00:02,000\na\n\n2\n00:01:0x,000 --> 00:01:02,000\nb\n")
                == "film.srt:6: \"00:01:0x,000\" is not a time")
        #expect(Self.error("1\n00:00:03,000 --> 00:00:02,000\na\n") == "film.srt:2: the cue ends before it starts")
        #expect(Self.error("1\nhello\n").hasPrefix("film.srt:2: expected a cue's times"))
        #expect(Self.error("").hasPrefix("film.srt:1: the file is empty"))
        #expect(Self.error("\n\nhello world\n").hasPrefix("film.srt:3: not a subtitle file"))
        #expect(Self.error("PK\u{3}\u{4}\0\0junk").hasPrefix("film.srt:1: not a subtitle file (binary data"))
        #expect(
            Self.error("WEBVTT\n\n00:01.000 --> 00:61.000\nx\n", file: "a.vtt")
                == "a.vtt:3: \"00:61.000\" is not a time")
        let ass = "[Script Info]\n\n[Events]\nFormat: Layer, Start, End, Style, Text\n"
        #expect(
            Self.error(ass + "Dialogue: 0,0:00:01.00,0:0x:02.00,Default,hi\n", file: "f.ass")
                == "f.ass:5: \"0:0x:02.00\" is not a time")
        #expect(
            Self.error(ass + "Dialogue: 0,0:00:01.00\n", file: "f.ass")
                == "f.ass:5: the event has 2 field(s), its Format names 5")
        #expect(
            Self.error("[Script Info]\n[Events]\nDialogue: 0,0:00:01.00,0:00:02.00,D,,0,0,0,,x\n", file: "f.ass")
                == "f.ass:3: a Dialogue line before the events' Format line")
        #expect(Self.error("[Script Info]\nTitle: x\n", file: "f.ass") == "f.ass:2: the script has no [Events] section")
    }

    /// What the review of the first version found: leading blank lines before WEBVTT, a
    /// script libass would not read, a NUL's line in a CR-only file, a header whose [Events]
    /// follows a line directly.
    @Test func edgesOfTheFormats() throws {
        let vtt = try Self.parse("\n\nWEBVTT\n\n00:01.000 --> 00:02.000\nHi\n", file: "a.vtt")
        #expect(vtt.cues.count == 1)
        #expect(
            Self.error("[Script Info]\nTitle: t\n\n[Events]\nFormat: Layer, Start, End, Text\n", file: "f.ass")
                == "f.ass:5: the script has neither a ScriptType line nor a [V4+ Styles] section")
        #expect(Self.error("1\r00:00:01,000 --> 00:00:02,000\r\0").hasPrefix("film.srt:3: not a subtitle file"))
        let glued = SubtitleTrackFile(
            kind: .ass, header: "[Script Info]\nScriptType: v4.00+\n[Events]\nFormat: Layer, Start, End, Style, Text",
            events: [.init(start: 0, end: 1000, payload: "1,0,Default,x")])
        let d = try SubtitleParser.parse(Array(glued.text.utf8), file: "g.ass")
        #expect(d.eventCount == 1, "\(glued.text)")
    }

    @Test func clockTimes() {
        #expect(SubtitleParser.clockTime("00:00:01,5") == 1500)
        #expect(SubtitleParser.clockTime("1:02:03.004") == 3_723_004)
        #expect(SubtitleParser.clockTime("02:03") == 123_000)
        #expect(SubtitleParser.clockTime("100:00.000") == 6_000_000)
        for bad in ["", "1", "00:00:60,000", "00:60:00,000", "aa:00:00", "00:00:01,0000", "-1:00:00"] {
            #expect(SubtitleParser.clockTime(bad) == nil, "\(bad)")
        }
        #expect(SubtitleParser.assTime("0:00:01.5") == 1050)  // libass: centiseconds, however many digits
        #expect(SubtitleParser.assTime("1:00:00.00") == 3_600_000)
        #expect(SubtitleParser.assTime("00:01.00") == nil)
    }

    /// The style SRT cues take from the layer: ASS colours (BGR, alpha inverted), a box
    /// (BorderStyle 3) only with a background, bottom centre.
    @Test func headerFromTheLayersLook() {
        let style = SubtitleStyle(
            family: "DejaVu Sans", bold: true, italic: false, size: 54, color: ARGBColor(argb: 0xFFFF_8000),
            outlineColor: ARGBColor(argb: 0x8000_0000), outline: 2.16, shadow: false, background: ARGBColor(argb: 0),
            padding: 13.5, marginV: 32, marginH: 58)
        let header = style.header(width: 1920, height: 1080)
        #expect(header.contains("PlayResX: 1920\nPlayResY: 1080"))
        #expect(
            header.contains(
                "Style: Default,DejaVu Sans,54,&H000080FF,&H000080FF,&H7F000000,&HFF000000,-1,0,0,0,100,100,0,0,1,2.16,0,2,58,58,32,1"
            ))
        var boxed = style
        boxed.background = ARGBColor(argb: 0x8000_0000)
        #expect(boxed.header(width: 1920, height: 1080).contains(",3,13.5,0,2,"))
    }

    /// A track read out of a container becomes its file again: ASS with Start and End put after
    /// Layer and its fonts embedded before [Events]; SRT numbered.
    @Test func trackFilesWrittenBack() throws {
        let header =
            "[Script Info]\nScriptType: v4.00+\n\n[Events]\nFormat: Layer, Start, End, Style, Name, MarginL, MarginR, MarginV, Effect, Text\n"
        let ass = SubtitleTrackFile(
            kind: .ass, header: header,
            events: [.init(start: 61_230, end: 62_000, payload: "3,0,Default,,0,0,0,,Hi, there")],
            fonts: [(name: "a.ttf", data: [0, 1, 2, 255])])
        let text = ass.text
        #expect(text.contains("[Fonts]\nfontname: a.ttf\n!!%#`Q\n"))
        #expect(text.contains("Dialogue: 0,0:01:01.23,0:01:02.00,Default,,0,0,0,,Hi, there"))
        let d = try SubtitleParser.parse(Array(text.utf8), file: "t.ass")
        #expect(d.eventCount == 1 && d.embeddedFonts == 1)
        let srt = SubtitleTrackFile(
            kind: .srt, header: "", events: [.init(start: 1000, end: 3_723_004, payload: "a\n\nb")])
        #expect(srt.text == "1\n00:00:01,000 --> 01:02:03,004\na\nb\n\n")
        #expect(try SubtitleParser.parse(Array(srt.text.utf8), file: "t.srt").cues.count == 1)
    }
}
