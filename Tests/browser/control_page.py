#!/usr/bin/python3
"""Drives the control page of a running `gst-watermark … --control PORT` in headless
Chromium (python3-selenium + chromium-driver): waits for the live snapshot, types new
text into the first layer and applies it, then drags on the preview to move that layer.
Checks each step through the API and saves a screenshot of the page.

    control_page.py PORT SCREENSHOT.png [WIDTHxHEIGHT] [HOST] [TOKEN]
HOST defaults to 127.0.0.1; with TOKEN, the page's prompt for it is answered.
Exit status 0 when every step took effect; a message on stderr otherwise.
"""
import json
import sys
import time
import urllib.request

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By


HOST, TOKEN = "127.0.0.1", None


def layers(port):
    request = urllib.request.Request("http://%s:%d/api/layers" % (HOST, port))
    if TOKEN:
        request.add_header("Authorization", "Bearer " + TOKEN)
    with urllib.request.urlopen(request, timeout=5) as r:
        return json.load(r)["layers"]


def wait(what, test, seconds=15):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            if test():
                return
        except Exception:
            pass
        time.sleep(0.1)
    sys.exit("control page: " + what)


def main():
    global HOST, TOKEN
    port, screenshot = int(sys.argv[1]), sys.argv[2]
    size = sys.argv[3].replace("x", ",") if len(sys.argv) > 3 else "1000,900"
    HOST = sys.argv[4] if len(sys.argv) > 4 else HOST
    TOKEN = sys.argv[5] if len(sys.argv) > 5 else None
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for flag in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                 "--window-size=" + size):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    try:
        driver.get("http://%s:%d/" % (HOST, port))
        if TOKEN:
            # The page asks once (the first API request is refused without it).
            wait("the page did not ask for the token", lambda: driver.switch_to.alert)
            alert = driver.switch_to.alert
            alert.send_keys(TOKEN)
            alert.accept()
        snap = driver.find_element(By.ID, "snap")
        wait("the snapshot never loaded",
             lambda: driver.execute_script("return arguments[0].naturalWidth", snap) > 0)
        wait("no layer listed", lambda: driver.find_elements(By.CSS_SELECTOR, ".layer input[name=text]"))

        text = driver.find_element(By.CSS_SELECTOR, ".layer input[name=text]")
        text.clear()
        text.send_keys("I")
        driver.find_element(By.CSS_SELECTOR, ".layer button[name=apply]").click()
        wait("the new text was not applied", lambda: layers(port)[0].get("text") == "I")

        # Drag from the middle of the preview to 30 % across and down.
        w, h = snap.size["width"], snap.size["height"]
        ActionChains(driver).move_to_element(snap).click_and_hold() \
            .move_by_offset(int(-0.1 * w), int(-0.1 * h)) \
            .move_by_offset(int(-0.1 * w), int(-0.1 * h)).release().perform()
        wait("the drag did not move the layer",
             lambda: abs(layers(port)[0]["x"] - 0.3) < 0.03 and abs(layers(port)[0]["y"] - 0.3) < 0.03)
        # A snapshot taken after the change, then the page as the user sees it.
        first = driver.execute_script("return arguments[0].src", snap)
        wait("the snapshot stopped refreshing", lambda: driver.execute_script("return arguments[0].src", snap) != first)
        time.sleep(1.2)
        driver.save_screenshot(screenshot)
        status = driver.find_element(By.ID, "status").text
        if "fps" not in status:
            sys.exit("control page: no status line (%r)" % status)
        print("control page: text applied, layer dragged to (%.3f, %.3f); status: %s"
              % (layers(port)[0]["x"], layers(port)[0]["y"], status))
    finally:
        driver.quit()


if __name__ == "__main__":
    main()
