# Renders the pages datasheettest lays out (JSON on stdin) into one PDF.
# It only draws: every word and position comes from the Go side, so the
# figures a test expects are written in one place. invariant=1 fixes the
# dates and document ID reportlab would otherwise vary, so the same pages
# are the same bytes.
import json
import sys

from reportlab.lib.pagesizes import letter
from reportlab.pdfgen import canvas

doc = json.load(sys.stdin)
c = canvas.Canvas(doc["path"], pagesize=letter, invariant=1)
c.setTitle(doc["title"])
c.setAuthor(doc["author"])
for page in doc["pages"]:
    for t in page:
        c.setFont(t["font"], t["size"])
        if t["align"] == "center":
            c.drawCentredString(t["x"], t["y"], t["s"])
        elif t["align"] == "right":
            c.drawRightString(t["x"], t["y"], t["s"])
        else:
            c.drawString(t["x"], t["y"], t["s"])
    c.showPage()
c.save()
