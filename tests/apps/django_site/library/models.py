"""A library's catalogue, shaped so its admin uses Django's real widgets: a ManyToMany with the
two-box "Filter" picker, a ForeignKey through the select2 autocomplete, a choice field of 48
countries (a long list), a date with the calendar."""

from django.db import models

COUNTRIES = [(code, name) for code, name in (
    ("AR", "Argentina"), ("AU", "Australia"), ("AT", "Austria"), ("BE", "Belgium"), ("BR", "Brazil"),
    ("BG", "Bulgaria"), ("CA", "Canada"), ("CL", "Chile"), ("CN", "China"), ("CO", "Colombia"),
    ("HR", "Croatia"), ("CZ", "Czechia"), ("DK", "Denmark"), ("EG", "Egypt"), ("EE", "Estonia"),
    ("FI", "Finland"), ("FR", "France"), ("DE", "Germany"), ("GR", "Greece"), ("HU", "Hungary"),
    ("IS", "Iceland"), ("IN", "India"), ("ID", "Indonesia"), ("IE", "Ireland"), ("IL", "Israel"),
    ("IT", "Italy"), ("JP", "Japan"), ("KE", "Kenya"), ("KR", "Korea"), ("LV", "Latvia"),
    ("LT", "Lithuania"), ("MX", "Mexico"), ("MA", "Morocco"), ("NL", "Netherlands"), ("NZ", "New Zealand"),
    ("NO", "Norway"), ("PE", "Peru"), ("PL", "Poland"), ("PT", "Portugal"), ("RO", "Romania"),
    ("ES", "Spain"), ("SE", "Sweden"), ("CH", "Switzerland"), ("TH", "Thailand"), ("TR", "Turkey"),
    ("GB", "United Kingdom"), ("UY", "Uruguay"), ("VN", "Vietnam"),
)]


class Tag(models.Model):
    name = models.CharField(max_length=60, unique=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class Author(models.Model):
    name = models.CharField(max_length=120)
    born = models.PositiveIntegerField("year born", null=True, blank=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class Book(models.Model):
    title = models.CharField(max_length=200)
    author = models.ForeignKey(Author, on_delete=models.PROTECT, related_name="books")
    tags = models.ManyToManyField(Tag, blank=True, related_name="books")
    country = models.CharField(max_length=2, choices=COUNTRIES, default="KR")
    published = models.DateField("publication date", null=True, blank=True)

    class Meta:
        ordering = ["title"]

    def __str__(self) -> str:
        return self.title
