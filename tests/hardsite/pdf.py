"""A one-page PDF with a text layer, written by hand (no library needed to make one): what a
site's invoice download is; and a scanned one, a picture of the page with no text layer."""

from __future__ import annotations

from io import BytesIO


def written(objects: list[str]) -> bytes:
    """A PDF file of `objects` (numbered from 1, the first the catalogue), with its cross-reference table."""
    out, offsets = bytearray(b"%PDF-1.4\n"), []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n{body}\nendobj\n".encode("latin-1")
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    out += "".join(f"{offset:010d} 00000 n \n" for offset in offsets).encode()
    out += f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    return bytes(out)


def text_pdf(lines: list[str]) -> bytes:
    def escaped(line: str) -> str:
        return line.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")

    content = "BT /F1 12 Tf 16 TL 72 740 Td " + " ".join(f"({escaped(line)}) Tj T*" for line in lines) + " ET"
    objects = [
        "<< /Type /Catalog /Pages 2 0 R >>",
        "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> >> "
        "/Contents 5 0 R >>",
        "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
        f"<< /Length {len(content.encode('latin-1'))} >>\nstream\n{content}\nendstream",
    ]
    return written(objects)


def scanned_pdf(lines: list[str]) -> bytes:
    from PIL import Image, ImageDraw, ImageFont

    page = Image.new("RGB", (1000, 80 + 60 * len(lines)), "white")
    pen, font = ImageDraw.Draw(page), ImageFont.load_default(size=28)
    for n, line in enumerate(lines):
        pen.text((40, 40 + n * 60), line, fill="black", font=font)
    out = BytesIO()
    page.save(out, format="PDF")
    return out.getvalue()
