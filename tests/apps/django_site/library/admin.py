from django.contrib import admin

from .models import Author, Book, Tag


@admin.register(Tag)
class TagAdmin(admin.ModelAdmin):
    search_fields = ["name"]


@admin.register(Author)
class AuthorAdmin(admin.ModelAdmin):
    list_display = ["name", "born"]
    search_fields = ["name"]  # what the book's author autocomplete searches


@admin.register(Book)
class BookAdmin(admin.ModelAdmin):
    list_display = ["title", "author", "country", "published"]
    list_filter = ["country", "tags"]
    search_fields = ["title", "author__name"]
    autocomplete_fields = ["author"]
    filter_horizontal = ["tags"]
    fields = ["title", "author", "country", "published", "tags"]
