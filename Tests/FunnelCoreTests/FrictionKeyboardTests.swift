import FunnelCore
import Testing

/// Hand-built sessions for each keyboard sequence of docs/metrics.md ("Normalising the
/// keyboard"), on an iPhone-sized window.
private enum Phone {
    static let portrait = (width: 390.0, height: 844.0)
    static let landscape = (width: 844.0, height: 390.0)
    static let focus = FrictionRect(x: 16, y: 284, width: 358, height: 44)
    static let action = FrictionRect(x: 16, y: 424, width: 358, height: 50)
    static let caret = 296.0
    static let landscapeFocus = FrictionRect(x: 60, y: 65, width: 724, height: 40)
    static let landscapeAction = FrictionRect(x: 60, y: 121, width: 724, height: 44)
    static let landscapeCaret = 77.0
}

/// A session under construction: each call appends one row a little after the previous one.
private struct SessionBuilder {
    var events: [FrictionEvent] = []
    var time = 1_700_000_000.0
    var landscape = false
    var inputMode = "en-US"
    var screen = "signup"

    var window: (width: Double, height: Double) { landscape ? Phone.landscape : Phone.portrait }

    mutating func add(_ type: String, phase: String? = nil, keyboard: FrictionRect? = nil, layout: Bool = true,
                      gap: Double = 0.25, focus: FrictionRect? = nil) {
        time += gap
        events.append(FrictionEvent(
            time: time, screen: screen, type: type, phase: phase,
            orientation: landscape ? "landscape_left" : "portrait", inputMode: inputMode, keyboard: keyboard,
            focus: layout ? (focus ?? (landscape ? Phone.landscapeFocus : Phone.focus)) : nil,
            action: layout ? (landscape ? Phone.landscapeAction : Phone.action) : nil,
            caretY: layout ? (landscape ? Phone.landscapeCaret : Phone.caret) : nil,
            screenWidth: window.width, screenHeight: window.height))
    }

    func docked(height: Double) -> FrictionRect {
        FrictionRect(x: 0, y: window.height - height, width: window.width, height: height)
    }

    func offScreen(height: Double) -> FrictionRect {
        FrictionRect(x: 0, y: window.height, width: window.width, height: height)
    }

    mutating func show(height: Double) {
        let frame = docked(height: height)
        add("keyboard", phase: "will_change_frame", keyboard: frame)
        add("keyboard", phase: "will_show", keyboard: frame, gap: 0.002)
        add("keyboard", phase: "did_change_frame", keyboard: frame)
        add("keyboard", phase: "did_show", keyboard: frame, gap: 0.002)
    }

    mutating func hide(height: Double) {
        let frame = offScreen(height: height)
        add("keyboard", phase: "will_change_frame", keyboard: frame, gap: 2)
        add("keyboard", phase: "will_hide", keyboard: frame, gap: 0.002)
        add("keyboard", phase: "did_change_frame", keyboard: frame)
        add("keyboard", phase: "did_hide", keyboard: frame, gap: 0.002)
    }

    /// A rotation with the keyboard up: iOS hides and re-shows it around the rotation.
    mutating func rotate(keyboardHeightAfter height: Double, keyboardHeightBefore before: Double) {
        add("rotation", phase: "will", layout: false, gap: 2)
        add("keyboard", phase: "will_hide", keyboard: offScreen(height: before), gap: 0.005)
        add("keyboard", phase: "did_hide", keyboard: offScreen(height: before), gap: 0.005)
        landscape.toggle()
        add("rotation", phase: "did", gap: 0.35)
        let frame = docked(height: height)
        add("keyboard", phase: "will_show", keyboard: frame, gap: 0.005)
        add("keyboard", phase: "did_show", keyboard: frame)
        add("keyboard", phase: "did_change_frame", keyboard: frame, gap: 0.002)
    }

    var occlusions: [FrictionType] { KeyboardOcclusionDetector().episodes(in: events).map(\.type) }
}

@Suite("Friction: keyboard occlusion")
struct FrictionKeyboardTests {
    @Test("a standard keyboard shown and hidden covers nothing")
    func normalKeyboardCoversNothing() {
        var session = SessionBuilder()
        session.add("screen_view")
        session.show(height: 291)
        session.hide(height: 291)
        #expect(session.occlusions.isEmpty)
    }

    @Test("a tall keyboard over the button is one occlusion per appearance, of the button only")
    func tallKeyboardCoversTheButton() {
        var session = SessionBuilder()
        session.inputMode = "zh-Hans-pinyin"
        session.add("screen_view")
        session.show(height: 444)
        session.hide(height: 444)
        session.show(height: 444)
        let episodes = KeyboardOcclusionDetector().episodes(in: session.events)
        #expect(episodes.map(\.type) == [.keyboardCoversAction, .keyboardCoversAction])
        #expect(episodes.allSatisfy { $0.inputMode == "zh-Hans-pinyin" && $0.orientation == "portrait" })
        #expect(episodes[0].severity == 1)
    }

    @Test("a keyboard over the field and caret reports field and caret, not the button above it")
    func keyboardCoversFieldAndCaret() {
        var session = SessionBuilder()
        let low = FrictionRect(x: 16, y: 700, width: 358, height: 44)
        session.add("screen_view", focus: low)
        session.add("keyboard", phase: "did_change_frame", keyboard: session.docked(height: 291), focus: low)
        #expect(Set(KeyboardOcclusionDetector().episodes(in: session.events).map(\.type)) == [.keyboardCoversField])
        var withCaret = SessionBuilder()
        withCaret.add("screen_view")
        withCaret.add("keyboard", phase: "did_change_frame", keyboard: FrictionRect(x: 0, y: 290, width: 390, height: 554))
        #expect(Set(withCaret.occlusions) == [.keyboardCoversField, .keyboardCoversAction, .keyboardCoversCaret])
    }

    @Test("the hide/show around a rotation adds no episode; the covering landscape frame is found")
    func rotationFindsTheLandscapeOcclusionOnce() {
        var session = SessionBuilder()
        session.inputMode = "zh-Hans-pinyin"
        session.add("screen_view")
        session.show(height: 343)
        #expect(session.occlusions.isEmpty, "the portrait Pinyin keyboard clears the button")
        session.rotate(keyboardHeightAfter: 255, keyboardHeightBefore: 343)
        let episodes = KeyboardOcclusionDetector().episodes(in: session.events)
        #expect(episodes.map(\.type) == [.keyboardCoversAction])
        #expect(episodes.first?.orientation == "landscape")
        session.add("rotation", phase: "will", layout: false, gap: 2)
        session.add("keyboard", phase: "will_hide", keyboard: session.offScreen(height: 255), gap: 0.005)
        session.add("keyboard", phase: "did_hide", keyboard: session.offScreen(height: 255), gap: 0.005)
        session.add("rotation", phase: "did", gap: 0.35)
        session.add("keyboard", phase: "will_show", keyboard: session.docked(height: 255), gap: 0.005)
        session.add("keyboard", phase: "did_show", keyboard: session.docked(height: 255))
        #expect(session.occlusions == [.keyboardCoversAction], "a flip to the other landscape side keeps one episode")
    }

    @Test("a standard keyboard in landscape clears the button, before and after rotation")
    func standardLandscapeKeyboardCoversNothing() {
        var session = SessionBuilder()
        session.add("screen_view")
        session.show(height: 291)
        session.rotate(keyboardHeightAfter: 205, keyboardHeightBefore: 291)
        session.hide(height: 205)
        #expect(session.occlusions.isEmpty)
    }

    @Test("an undocked keyboard dragged (zero frames) and parked clear of the form covers nothing")
    func undockedDragCoversNothing() {
        var session = SessionBuilder()
        session.add("screen_view")
        let floating = FrictionRect(x: 50, y: 504, width: 320, height: 250)
        session.add("keyboard", phase: "will_change_frame", keyboard: FrictionRect(x: 0, y: 0, width: 0, height: 0))
        session.add("keyboard", phase: "did_change_frame", keyboard: floating)
        session.add("keyboard", phase: "did_change_frame", keyboard: floating, gap: 0.001)
        session.add("keyboard", phase: "will_change_frame", keyboard: FrictionRect(x: 0, y: 0, width: 0, height: 0))
        session.add("keyboard", phase: "did_change_frame", keyboard: FrictionRect(x: 0, y: 0, width: 0, height: 0))
        #expect(session.occlusions.isEmpty)
    }

    @Test("a zero frame is unknown: it neither ends nor restarts an occlusion")
    func zeroFrameIsUnknown() {
        var session = SessionBuilder()
        session.add("screen_view")
        session.show(height: 444)
        session.add("keyboard", phase: "did_change_frame", keyboard: FrictionRect(x: 0, y: 0, width: 0, height: 0))
        session.add("keyboard", phase: "did_change_frame", keyboard: session.docked(height: 444))
        #expect(session.occlusions == [.keyboardCoversAction])
    }

    @Test("merging or splitting sends did_change_frame twice with identical frames: one episode")
    func mergeSplitDuplicateIsOneEpisode() {
        var session = SessionBuilder()
        session.add("screen_view")
        let split = FrictionRect(x: 0, y: 380, width: 390, height: 200)
        session.add("keyboard", phase: "did_change_frame", keyboard: split)
        session.add("keyboard", phase: "did_change_frame", keyboard: split, gap: 0.001)
        #expect(session.occlusions == [.keyboardCoversAction])
    }

    @Test("a hardware keyboard without an accessory view sends nothing and covers nothing")
    func hardwareKeyboardWithoutAccessory() {
        var session = SessionBuilder()
        session.add("screen_view")
        session.add("validation_error", layout: false, gap: 3)
        #expect(session.occlusions.isEmpty)
    }

    @Test("an accessory view covers only what it really overlaps, even united with the hidden keyboard")
    func accessoryViewCoversOnlyWhatItOverlaps() {
        var session = SessionBuilder()
        session.add("screen_view")
        let accessory = FrictionRect(x: 0, y: 800, width: 390, height: 44)
        session.add("keyboard", phase: "will_show", keyboard: accessory)
        session.add("keyboard", phase: "did_show", keyboard: accessory)
        let union = FrictionRect(x: 0, y: 800, width: 390, height: 335)
        session.add("keyboard", phase: "did_change_frame", keyboard: union)
        #expect(session.occlusions.isEmpty, "the field and button sit above the 44-point bar")

        var bottomField = SessionBuilder()
        let low = FrictionRect(x: 16, y: 790, width: 358, height: 30)
        bottomField.add("screen_view", focus: low)
        bottomField.add("keyboard", phase: "did_change_frame", keyboard: union, focus: low)
        #expect(bottomField.occlusions.contains(.keyboardCoversField), "a field under the visible bar is covered")
    }
}
