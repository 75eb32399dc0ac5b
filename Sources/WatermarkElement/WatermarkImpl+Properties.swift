// Property setters and getters: a value is read from its GValue by the table's type and
// recorded under the settings lock; the streaming thread picks it up on its next frame.
// Files named by properties are loaded elsewhere (WatermarkImpl+Loading.swift).

import CGStreamer
import WatermarkModel

extension WatermarkImpl {
    /// Sets property `id` (1-based index into `WatermarkProperties.all`); false for an
    /// id that is not one.
    func setProperty(_ id: UInt32, _ gvalue: UnsafePointer<GValue>) -> Bool {
        guard let property = WatermarkProperties.definition(id: id) else { return false }
        let value = PropertyValue(gvalue, as: property.type)
        switch (property.name, value) {
        case ("image", .string(let path)): setImage(path)
        case ("text-file", .string(let path)): setTextFile(path)
        case ("config", .string(let path)): setConfig(path)
        case ("config-data", .string(let text)): setConfigData(text)
        case ("overlay-mode", .choice(let mode)): settings.withLock { $0.blendOnly = mode == 1 }
        case ("follow-orientation", .bool(let b)): settings.withLock { $0.followOrientation = b }
        case ("render-ahead", .bool(let b)): settings.withLock { $0.renderAhead = b }
        case (_, _) where property.scope == .layer: settings.withLock { $0.shorthand.set(property.name, value) }
        default: break
        }
        return true
    }

    /// Writes property `id`'s current value into `gvalue`; false for an unknown id.
    func getProperty(_ id: UInt32, _ gvalue: UnsafeMutablePointer<GValue>) -> Bool {
        guard let property = WatermarkProperties.definition(id: id) else { return false }
        let s = settings.withLock { $0 }
        let value: PropertyValue? =
            switch property.name {
            case "config": .string(s.configPath)
            case "config-data": .string(s.configData)
            case "overlay-mode": .choice(s.blendOnly ? 1 : 0)
            case "follow-orientation": .bool(s.followOrientation)
            case "render-ahead": .bool(s.renderAhead)
            case "render-count": .counter(renderCount.load(ordering: .relaxed))
            default: s.shorthand.value(of: property.name)
            }
        value?.store(in: gvalue)
        return true
    }
}
