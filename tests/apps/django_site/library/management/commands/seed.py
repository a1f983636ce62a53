"""The catalogue the tests start from, Korean titles and names among it, and the superuser
`admin` whose password the test gives (goalbot types it as a secret)."""

import datetime

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand

from library.models import Author, Book, Tag

TAGS = ["소설", "역사", "시", "여행", "과학", "에세이", "Fantasy", "Mystery", "Classics", "Poetry",
        "Travel", "History", "Science", "Children", "Philosophy"]
AUTHORS = [("한강", 1970), ("김영하", 1968), ("박경리", 1926), ("신경숙", 1963), ("Haruki Murakami", 1949),
           ("Jane Austen", 1775), ("Italo Calvino", 1923), ("Chimamanda Ngozi Adichie", 1977),
           ("Viet Thanh Nguyen", 1971)]
BOOKS = [
    ("채식주의자", "한강", "KR", datetime.date(2007, 10, 30), ["소설"]),
    ("소년이 온다", "한강", "KR", datetime.date(2014, 5, 19), ["소설", "역사"]),
    ("살인자의 기억법", "김영하", "KR", datetime.date(2013, 7, 24), ["소설", "Mystery"]),
    ("여행의 이유", "김영하", "KR", datetime.date(2019, 4, 17), ["에세이", "여행"]),
    ("토지", "박경리", "KR", datetime.date(1969, 9, 1), ["소설", "역사"]),
    ("엄마를 부탁해", "신경숙", "KR", datetime.date(2008, 11, 10), ["소설"]),
    ("Norwegian Wood", "Haruki Murakami", "JP", datetime.date(1987, 9, 4), ["Classics"]),
    ("Kafka on the Shore", "Haruki Murakami", "JP", datetime.date(2002, 9, 12), ["Fantasy"]),
    ("Pride and Prejudice", "Jane Austen", "GB", datetime.date(1813, 1, 28), ["Classics"]),
    ("Invisible Cities", "Italo Calvino", "IT", datetime.date(1972, 11, 1), ["Classics", "Philosophy"]),
    ("Americanah", "Chimamanda Ngozi Adichie", "GB", datetime.date(2013, 5, 14), ["Travel"]),
    # Entered with the wrong country: a goal sets the right one, far down the list.
    ("The Sympathizer", "Viet Thanh Nguyen", "TH", datetime.date(2015, 4, 7), ["History"]),
]


class Command(BaseCommand):
    help = "Load the tests' catalogue and create the superuser admin."

    def add_arguments(self, parser):
        parser.add_argument("--admin-password", required=True)

    def handle(self, *args, admin_password: str, **options):
        tags = {name: Tag.objects.create(name=name) for name in TAGS}
        authors = {name: Author.objects.create(name=name, born=born) for name, born in AUTHORS}
        for title, author, country, published, tagged in BOOKS:
            book = Book.objects.create(title=title, author=authors[author], country=country, published=published)
            book.tags.set([tags[t] for t in tagged])
        get_user_model().objects.create_superuser("admin", "admin@example.com", admin_password)
        self.stdout.write(f"seeded {len(TAGS)} tags, {len(AUTHORS)} authors, {len(BOOKS)} books")
